#define _GNU_SOURCE
#include "control_client.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

/* A non-blocking socket for pid's endpoint, not yet connected; -1 with
 * the reason. */
static int open_socket(pid_t pid, struct sockaddr_un *address, char *error, size_t size)
{
	if (!socket_address(pid, address)) {
		snprintf(error, size, "no control directory can be named");
		return -1;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		snprintf(error, size, "cannot make a socket: %s", strerror(errno));
	return fd;
}

/* One try at connecting: 0, or the errno. A socket whose queue is full (a
 * process that stopped accepting) refuses a non-blocking connection with
 * EAGAIN, which the caller tries again until its deadline. */
static int connect_once(int fd, const struct sockaddr_un *address)
{
	while (connect(fd, (const struct sockaddr *)address, sizeof(*address)) != 0)
		if (errno != EINTR)
			return errno;
	return 0;
}

static void say_unreachable(pid_t pid, int reason, char *error, size_t size)
{
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
}

/* One request to one process, a step at a time, so that many go at once. */
enum step { CONNECTING, SENDING, RECEIVING, DONE };

struct exchange {
	pid_t pid;
	int fd;
	enum step step;
	struct sockaddr_un address;
	const char *line; /* the request and its newline; sent: how much went */
	size_t sent;
	char *buffer;
	size_t used, capacity;
	struct vt_control_answer *answer;
};

static void finish(struct exchange *x, bool ok)
{
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	x->step = DONE;
	x->answer->ok = ok;
	if (ok) {
		x->buffer[x->used] = '\0';
		x->answer->data = x->buffer;
		x->answer->length = x->used;
	} else {
		free(x->buffer);
	}
	x->buffer = NULL;
}

static void fail(struct exchange *x, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct exchange *x, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(x->answer->error, sizeof(x->answer->error), format, args);
	va_end(args);
	finish(x, false);
}

static void try_connect(struct exchange *x, bool last_try)
{
	int reason = connect_once(x->fd, &x->address);
	if (!reason) {
		x->step = SENDING;
		return;
	}
	if (reason == EAGAIN && !last_try)
		return; /* tried again after a while */
	say_unreachable(x->pid, reason, x->answer->error, sizeof(x->answer->error));
	finish(x, false);
}

static void try_send(struct exchange *x)
{
	size_t length = strlen(x->line);
	while (x->sent < length) {
		ssize_t sent = send(x->fd, x->line + x->sent, length - x->sent, MSG_NOSIGNAL);
		if (sent < 0 && errno == EINTR)
			continue;
		if (sent < 0 && errno == EAGAIN)
			return; /* polled for room */
		if (sent <= 0) {
			fail(x, "cannot ask process %d: %s", (int)x->pid, strerror(errno));
			return;
		}
		x->sent += (size_t)sent;
	}
	x->step = RECEIVING;
}

/* Reads what has come; the whole answer ends the exchange. */
static void try_receive(struct exchange *x)
{
	for (;;) {
		if (x->used + 1 == x->capacity) {
			if (x->capacity >= VT_CONTROL_ANSWER_MAX) {
				fail(x, "the answer is larger than any report");
				return;
			}
			char *larger = realloc(x->buffer, x->capacity * 2);
			if (!larger) {
				fail(x, "out of memory");
				return;
			}
			x->buffer = larger;
			x->capacity *= 2;
		}
		ssize_t got = recv(x->fd, x->buffer + x->used, x->capacity - x->used - 1, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == EAGAIN)
			return;
		if (got < 0) {
			fail(x, "reading the answer of process %d: %s", (int)x->pid,
			     strerror(errno));
			return;
		}
		if (got == 0) {
			if (x->used)
				finish(x, true);
			else
				fail(x, "process %d refused the request (another user's?)",
				     (int)x->pid);
			return;
		}
		x->used += (size_t)got;
	}
}

static void begin(struct exchange *x, pid_t pid, const char *line, struct vt_control_answer *answer)
{
	*answer = (struct vt_control_answer){0};
	*x = (struct exchange){.pid = pid, .fd = -1, .line = line, .answer = answer};
	x->fd = open_socket(pid, &x->address, answer->error, sizeof(answer->error));
	x->capacity = 1 << 16;
	x->buffer = x->fd < 0 ? NULL : malloc(x->capacity);
	if (x->fd >= 0 && !x->buffer)
		fail(x, "out of memory");
	else if (x->fd < 0)
		finish(x, false);
	else
		try_connect(x, false);
	if (x->step == SENDING)
		try_send(x);
}

/* Past the deadline, what each unfinished exchange was waiting for. */
static void give_up(struct exchange *x)
{
	if (x->step == CONNECTING)
		try_connect(x, true);
	if (x->step == SENDING)
		say_late(x->pid, "take the request", "", x->answer->error,
			 sizeof(x->answer->error));
	else if (x->step == RECEIVING)
		say_late(x->pid, "answer", "", x->answer->error, sizeof(x->answer->error));
	if (x->step != DONE)
		finish(x, false);
}

/* One round: waits for any socket to be ready (a queue that was full is
 * tried again after 20 ms), then takes each step that can be taken. */
static void round_of(struct exchange *xs, size_t count, struct pollfd *fds, int64_t deadline)
{
	size_t polled = 0;
	bool connecting = false;
	for (size_t i = 0; i < count; i++) {
		connecting = connecting || xs[i].step == CONNECTING;
		if (xs[i].step == SENDING || xs[i].step == RECEIVING)
			fds[polled++] = (struct pollfd){
				xs[i].fd, (short)(xs[i].step == SENDING ? POLLOUT : POLLIN), 0};
	}
	int wait = left_ms(deadline);
	if (poll(fds, polled, connecting && wait > 20 ? 20 : wait) < 0) {
		/* Anything but a signal would fail again at once: each exchange
		 * that waited ends now, said so, rather than spin to the deadline. */
		int reason = errno;
		for (size_t i = 0; reason != EINTR && i < count; i++)
			if (xs[i].step == SENDING || xs[i].step == RECEIVING)
				fail(&xs[i], "cannot wait for process %d: %s", (int)xs[i].pid,
				     strerror(reason));
		return;
	}
	polled = 0;
	for (size_t i = 0; i < count; i++) {
		struct exchange *x = &xs[i];
		if (x->step == CONNECTING) {
			try_connect(x, false);
			if (x->step == SENDING)
				try_send(x);
			continue;
		}
		if (x->step != SENDING && x->step != RECEIVING)
			continue;
		short ready = fds[polled++].revents;
		if (ready && x->step == SENDING)
			try_send(x);
		else if (ready)
			try_receive(x);
	}
}

void vt_control_ask_all(const pid_t *pids, size_t count, const char *request,
			struct vt_control_answer *answers)
{
	/* One deadline for every exchange: connecting, asking, reading. */
	int64_t deadline = now_ms() + ANSWER_WAIT_MS;
	char line[VT_CONTROL_REQUEST_MAX + 2];
	snprintf(line, sizeof(line), "%s\n", request);
	struct exchange *xs = calloc(count, sizeof(*xs));
	struct pollfd *fds = calloc(count, sizeof(*fds));
	if (!xs || !fds) {
		for (size_t i = 0; i < count; i++) {
			answers[i] = (struct vt_control_answer){0};
			snprintf(answers[i].error, sizeof(answers[i].error), "out of memory");
		}
		free(xs);
		free(fds);
		return;
	}
	for (size_t i = 0; i < count; i++)
		begin(&xs[i], pids[i], line, &answers[i]);
	for (;;) {
		bool open = false;
		for (size_t i = 0; i < count; i++)
			open = open || xs[i].step != DONE;
		if (!open)
			break;
		if (!left_ms(deadline)) {
			for (size_t i = 0; i < count; i++)
				give_up(&xs[i]);
			break;
		}
		round_of(xs, count, fds, deadline);
	}
	free(xs);
	free(fds);
}

bool vt_control_ask(pid_t pid, const char *request, char **data, size_t *length, char *error,
		    size_t size)
{
	struct vt_control_answer answer;
	vt_control_ask_all(&pid, 1, request, &answer);
	if (!answer.ok) {
		snprintf(error, size, "%s", answer.error);
		return false;
	}
	*data = answer.data;
	*length = answer.length;
	return true;
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
	struct sockaddr_un address;
	int fd = open_socket(pid, &address, error, sizeof(error));
	if (fd < 0)
		return false;
	int reason = connect_once(fd, &address);
	close(fd);
	if (!reason || reason == EAGAIN) /* a full queue has a listener behind it */
		return true;
	struct stat st;
	if (reason == ECONNREFUSED && lstat(address.sun_path, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    kill(pid, 0) != 0 && errno == ESRCH)
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
	if (!vt_control_ask(pid, reset_peak ? "snapshot reset-peak" : "snapshot", data, length,
			    error, size))
		return false;
	return vt_control_load_snapshot(pid, out, data, length, error, size);
}

bool vt_control_load_snapshot(pid_t pid, struct vt_report_file *out, char **data, size_t *length,
			      char *error, size_t size)
{
	char reason[512];
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

/* Most processes asked at once. */
#define GROUP_MAX 4096

/* How many processes to ask at once: as many sockets as may be open, the
 * limit raised to its ceiling, less a few for the tool's own files. */
static size_t sockets_at_once(void)
{
	struct rlimit limit;
	if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
		return 64;
	if (limit.rlim_cur < limit.rlim_max) {
		limit.rlim_cur = limit.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &limit) != 0)
			getrlimit(RLIMIT_NOFILE, &limit);
	}
	return limit.rlim_cur > GROUP_MAX + 32 ? GROUP_MAX
	       : limit.rlim_cur > 96           ? (size_t)limit.rlim_cur - 32
					       : 64;
}

static void snapshot_group(const pid_t *pids, size_t count, const struct vt_control_visit *visit)
{
	static struct vt_control_answer answers[GROUP_MAX];
	vt_control_ask_all(pids, count, "snapshot", answers);
	for (size_t i = 0; i < count; i++) {
		struct vt_report_file report;
		char error[1024];
		if (!answers[i].ok)
			visit->missed(pids[i], answers[i].error, visit->context);
		else if (!vt_control_load_snapshot(pids[i], &report, &answers[i].data,
						   &answers[i].length, error, sizeof(error)))
			visit->missed(pids[i], error, visit->context);
		else
			visit->taken(pids[i], &report, answers[i].data, visit->context);
	}
}

void vt_control_snapshot_all(const pid_t *pids, size_t count, const struct vt_control_visit *visit)
{
	size_t at_once = sockets_at_once();
	for (size_t first = 0; first < count; first += at_once)
		snapshot_group(pids + first, count - first < at_once ? count - first : at_once,
			       visit);
}
