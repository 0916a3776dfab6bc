#define _GNU_SOURCE
#include "control_client.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../lib/control/directory.h"
#include "../lib/control/endpoint.h"
#include "cli.h"
#include "report_file.h"

/* How long a traced process may take, from connecting to the last byte
 * of its answer, before the tool gives up: a snapshot takes the tracker's
 * locks briefly and symbolizes its stacks. */
#define ANSWER_WAIT_MS 10000

static bool socket_address(pid_t pid, struct sockaddr_un *address)
{
	char directory[sizeof(address->sun_path)];
	if (!vt_control_directory(directory, sizeof(directory)))
		return false;
	*address = (struct sockaddr_un){.sun_family = AF_UNIX};
	int length = snprintf(address->sun_path, sizeof(address->sun_path), "%s/%d.sock", directory,
			      (int)pid);
	return length > 0 && (size_t)length < sizeof(address->sun_path);
}

static int64_t now_ms(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* What is left of the exchange's time, for poll; 0 once it is spent. */
static int left_ms(int64_t deadline)
{
	int64_t left = deadline - now_ms();
	return left > 0 ? (int)left : 0;
}

static void say_late(pid_t pid, const char *what, const char *why, char *error, size_t size)
{
	snprintf(error, size, "process %d did not %s within %d s%s", (int)pid, what,
		 ANSWER_WAIT_MS / 1000, why);
}

/* A connected socket to pid's endpoint, or -1 with the reason. A socket
 * whose queue is full (a process that stopped accepting) refuses a
 * non-blocking connection with EAGAIN: tried again until the deadline,
 * never waited on without end. *busy says that was the reason. */
static int connect_to(pid_t pid, int64_t deadline, bool *busy, char *error, size_t size)
{
	struct sockaddr_un address;
	*busy = false;
	if (!socket_address(pid, &address)) {
		snprintf(error, size, "no control directory can be named");
		return -1;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(error, size, "cannot make a socket: %s", strerror(errno));
		return -1;
	}
	int reason = 0;
	while (connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0) {
		reason = errno;
		if (reason == EINTR)
			continue;
		if (reason != EAGAIN || !left_ms(deadline))
			break;
		nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
		reason = 0;
	}
	if (!reason)
		return fd;
	close(fd);
	if (reason == ENOENT || reason == ECONNREFUSED)
		snprintf(error, size,
			 "process %d is not traced by vramtrace (no control socket; it "
			 "may have ended, or run with VRAMTRACE_CONTROL=0)",
			 (int)pid);
	else if (reason == EAGAIN)
		say_late(pid, "take the connection", " (its control socket's queue is full)", error,
			 size);
	else
		snprintf(error, size, "cannot reach process %d: %s", (int)pid, strerror(reason));
	*busy = reason == EAGAIN;
	errno = reason;
	return -1;
}

/* Waits until fd is ready for events, within the deadline. */
static bool ready(int fd, short events, int64_t deadline)
{
	for (;;) {
		struct pollfd wanted = {fd, events, 0};
		int got = poll(&wanted, 1, left_ms(deadline));
		if (got < 0 && errno == EINTR)
			continue;
		return got > 0;
	}
}

static bool send_all(int fd, const char *text, pid_t pid, int64_t deadline, char *error,
		     size_t size)
{
	size_t length = strlen(text);
	while (length) {
		ssize_t sent = send(fd, text, length, MSG_NOSIGNAL);
		if (sent < 0 && errno == EINTR)
			continue;
		if (sent < 0 && errno == EAGAIN && ready(fd, POLLOUT, deadline))
			continue;
		if (sent < 0 && errno == EAGAIN) {
			say_late(pid, "take the request", "", error, size);
			return false;
		}
		if (sent <= 0) {
			snprintf(error, size, "cannot ask process %d: %s", (int)pid,
				 strerror(errno));
			return false;
		}
		text += sent;
		length -= (size_t)sent;
	}
	return true;
}

/* The whole answer, within the deadline: a peer that trickles a byte now
 * and then cannot keep the tool waiting past it. */
static bool receive_all(int fd, pid_t pid, int64_t deadline, char **data, size_t *length,
			char *error, size_t size)
{
	size_t capacity = 1 << 16, used = 0;
	char *buffer = malloc(capacity);
	for (;;) {
		if (!buffer) {
			snprintf(error, size, "out of memory");
			return false;
		}
		if (!ready(fd, POLLIN, deadline)) {
			say_late(pid, "answer", "", error, size);
			break;
		}
		ssize_t got = recv(fd, buffer + used, capacity - used - 1, 0);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got < 0) {
			snprintf(error, size, "reading the answer of process %d: %s", (int)pid,
				 strerror(errno));
			break;
		}
		if (got == 0) {
			buffer[used] = '\0';
			*data = buffer;
			*length = used;
			return true;
		}
		used += (size_t)got;
		if (used + 1 == capacity) {
			if (capacity >= VT_CONTROL_ANSWER_MAX) {
				snprintf(error, size, "the answer is larger than any report");
				break;
			}
			char *larger = realloc(buffer, capacity * 2);
			if (!larger)
				free(buffer);
			buffer = larger;
			capacity *= 2;
		}
	}
	free(buffer);
	return false;
}

bool vt_control_ask(pid_t pid, const char *request, char **data, size_t *length, char *error,
		    size_t size)
{
	/* One deadline for the whole exchange: connecting, asking, reading. */
	int64_t deadline = now_ms() + ANSWER_WAIT_MS;
	bool busy;
	int fd = connect_to(pid, deadline, &busy, error, size);
	if (fd < 0)
		return false;
	char line[VT_CONTROL_REQUEST_MAX + 2];
	snprintf(line, sizeof(line), "%s\n", request);
	bool ok = send_all(fd, line, pid, deadline, error, size) &&
		  receive_all(fd, pid, deadline, data, length, error, size);
	if (ok && *length == 0) {
		free(*data);
		snprintf(error, size, "process %d refused the request (another user's?)", (int)pid);
		ok = false;
	}
	close(fd);
	return ok;
}

static int by_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* A socket nobody listens on, of a process that no longer exists, is the
 * leftover of a process that ended without a word (SIGKILL): removed, as
 * memray and tmux clean theirs. Nothing else is: not a file that is no
 * socket, nor the socket of a live process (one that has bound it and not
 * yet listened refuses connections too). */
static bool alive(pid_t pid)
{
	char error[256];
	bool busy;
	int fd = connect_to(pid, now_ms(), &busy, error, sizeof(error));
	if (fd >= 0 || busy) { /* a full queue has a listener behind it */
		if (fd >= 0)
			close(fd);
		return true;
	}
	struct sockaddr_un address;
	struct stat st;
	if (errno == ECONNREFUSED && socket_address(pid, &address) &&
	    lstat(address.sun_path, &st) == 0 && S_ISSOCK(st.st_mode) && kill(pid, 0) != 0 &&
	    errno == ESRCH)
		unlink(address.sun_path);
	return false;
}

int vt_control_list(pid_t *pids, int max, char *error, size_t size)
{
	char directory[sizeof(((struct sockaddr_un *)0)->sun_path)];
	if (!vt_control_directory(directory, sizeof(directory))) {
		snprintf(error, size, "no control directory can be named");
		return -1;
	}
	DIR *listing = opendir(directory);
	if (!listing) {
		if (errno == ENOENT)
			return 0; /* nothing has been traced yet */
		snprintf(error, size, "cannot read %s: %s", directory, strerror(errno));
		return -1;
	}
	int count = 0;
	for (struct dirent *entry; count < max && (entry = readdir(listing));) {
		char *end;
		long pid = strtol(entry->d_name, &end, 10);
		if (end != entry->d_name && strcmp(end, ".sock") == 0 && pid > 0 &&
		    alive((pid_t)pid))
			pids[count++] = (pid_t)pid;
	}
	closedir(listing);
	qsort(pids, (size_t)count, sizeof(*pids), by_pid);
	return count;
}

bool vt_control_snapshot(pid_t pid, bool reset_peak, struct vt_report_file *out, char **data,
			 size_t *length, char *error, size_t size)
{
	char reason[512];
	if (!vt_control_ask(pid, reset_peak ? "snapshot reset-peak" : "snapshot", data, length,
			    reason, sizeof(reason))) {
		snprintf(error, size, "%s", reason);
		return false;
	}
	char name[64];
	snprintf(name, sizeof(name), "process %d", (int)pid);
	if (!vt_report_load_buffer(name, *data, *length, out, reason, sizeof(reason))) {
		snprintf(error, size, "the snapshot of %s", reason);
		free(*data);
		*data = NULL;
		return false;
	}
	out->path = NULL; /* name was this function's own */
	return true;
}

bool vt_parse_pid(const char *command, const char *text, pid_t *pid)
{
	char *end;
	errno = 0;
	long value = strtol(text, &end, 10);
	if (text[0] < '0' || text[0] > '9' || *end || errno || value <= 0 || value > INT32_MAX) {
		vt_diagnostic("vramtrace %s: '%s' is not a process id", command, text);
		return false;
	}
	*pid = (pid_t)value;
	return true;
}
