#define _GNU_SOURCE
#include "endpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../log.h"
#include "../library/control.h"
#include "directory.h"
#include "../library/socket_file.h"
#include "../sources/background.h"

/* Under this many descriptors the program may need every one it has, so
 * the endpoint, which keeps one, stays off. */
#define MIN_DESCRIPTOR_LIMIT 256
/* The endpoint's descriptors sit this far below the limit (or below 1024),
 * out of the way of a program that takes the lowest free one. */
#define DESCRIPTOR_MARGIN 32
#define REQUEST_WAIT_MS   1000
#define ANSWER_WAIT_S     2
/* From the connection to the answer's last write: a client that takes it
 * a little at a time, each write under ANSWER_WAIT_S, would otherwise hold
 * the one thread that serves, and every other client, for as long as it
 * liked. The tool has given up by then (its own deadline, also 10 s). */
#define ANSWER_LIMIT_S 10
#define WATCH_MS       200

static struct {
	int listener;
	dev_t device;
	ino_t inode;
	atomic_int connection; /* the one being answered, for a fork's child to close */
} endpoint = {.listener = -1, .connection = -1};

static atomic_bool warned_directory, warned_socket, warned_lost;

/* The directory, made if need be, and used only when it is this user's
 * own and nobody else's to reach. Its mode is 0700 whatever the program's
 * umask (0777 would leave one that no later process of the user could
 * bind in). */
static bool safe_directory(const char *path)
{
	if (mkdir(path, 0700) != 0 && errno != EEXIST)
		return false;
	struct stat status;
	if (lstat(path, &status) != 0)
		return false;
	const char *wrong = !S_ISDIR(status.st_mode)      ? "is not a directory (a symlink?)"
			    : status.st_uid != getuid()   ? "belongs to another user"
			    : (status.st_mode & 077) != 0 ? "is open to other users"
							  : NULL;
	if (wrong)
		vt_warn_once(&warned_directory, "the control directory %s %s; no control socket",
			     path, wrong);
	else if ((status.st_mode & 0777) != 0700 && chmod(path, 0700) != 0)
		return false;
	return wrong == NULL;
}

static int descriptor_floor(void)
{
	struct rlimit limit;
	if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur < MIN_DESCRIPTOR_LIMIT)
		return -1;
	rlim_t top = limit.rlim_cur < 1024 ? limit.rlim_cur : 1024;
	return (int)(top - DESCRIPTOR_MARGIN);
}

/* fd moved up to the endpoint's range; closed and -1 when it cannot be. */
static int move_up(int fd)
{
	int floor = descriptor_floor();
	if (fd < 0 || floor < 0 || fd >= floor)
		return fd;
	int moved = fcntl(fd, F_DUPFD_CLOEXEC, floor);
	close(fd);
	return moved;
}

/* The listener is still the socket it was: a program that closed it and
 * opened a file of its own in its place must never see us use that. */
static bool listener_is_ours(void)
{
	struct stat status;
	return fstat(endpoint.listener, &status) == 0 && status.st_dev == endpoint.device &&
	       status.st_ino == endpoint.inode;
}

static bool peer_allowed(int connection)
{
	struct ucred peer;
	socklen_t length = sizeof(peer);
	if (getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0)
		return false;
	return peer.uid == getuid() || peer.uid == 0;
}

/* One line within a second, or nothing. */
static bool read_request(int connection, char *line, size_t size)
{
	size_t used = 0;
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (used + 1 < size) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long waited = (now.tv_sec - start.tv_sec) * 1000 +
			      (now.tv_nsec - start.tv_nsec) / 1000000;
		struct pollfd ready = {connection, POLLIN, 0};
		if (waited >= REQUEST_WAIT_MS ||
		    poll(&ready, 1, (int)(REQUEST_WAIT_MS - waited)) <= 0)
			return false;
		ssize_t got = recv(connection, line + used, size - 1 - used, MSG_DONTWAIT);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			return false;
		used += (size_t)got;
		char *end = memchr(line, '\n', used);
		if (end) {
			*end = '\0';
			return end == line + used - 1; /* nothing after the line */
		}
	}
	return false;
}

/* A client that hung up fails the write, raising no SIGPIPE
 * (vt_report_write_json_to_socket): none of the program's is touched. */
static void answer(int connection, const char *request, const struct timespec *accepted)
{
	bool reset = strcmp(request, "snapshot reset-peak") == 0;
	if (!reset && strcmp(request, "snapshot") != 0)
		return;
	struct timeval wait = {ANSWER_WAIT_S, 0};
	setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof(wait));
	uint64_t deadline_ns = ((uint64_t)accepted->tv_sec + ANSWER_LIMIT_S) * 1000000000u +
			       (uint64_t)accepted->tv_nsec;
	vt_library_control_snapshot(connection, reset, deadline_ns);
}

static void serve_one(void)
{
	int connection = move_up(accept4(endpoint.listener, NULL, NULL, SOCK_CLOEXEC));
	if (connection < 0)
		return;
	atomic_store(&endpoint.connection, connection);
	struct timespec accepted;
	clock_gettime(CLOCK_MONOTONIC, &accepted);
	char request[VT_CONTROL_REQUEST_MAX + 1];
	if (peer_allowed(connection) && read_request(connection, request, sizeof(request)))
		answer(connection, request, &accepted);
	atomic_store(&endpoint.connection, -1);
	close(connection);
}

static void *serve(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd ready = {endpoint.listener, POLLIN, 0};
		int events = poll(&ready, 1, WATCH_MS);
		if (vt_background_should_leave())
			return NULL;
		if (!listener_is_ours()) {
			vt_warn_once(&warned_lost, "the program closed the control socket's "
						   "descriptor; the control endpoint is off");
			vt_control_remove();
			/* No longer counted among the tracer's threads: counted,
			 * it would make the program's last thread but one look
			 * like its last (a main thread's raw exit would end the
			 * process under it). */
			vt_background_done();
			return NULL;
		}
		if (events > 0 && (ready.revents & POLLIN))
			serve_one();
	}
}

static bool socket_path(struct sockaddr_un *address)
{
	char directory[sizeof(address->sun_path)];
	if (!vt_control_directory(directory, sizeof(directory)) || !safe_directory(directory))
		return false;
	address->sun_family = AF_UNIX;
	int length = snprintf(address->sun_path, sizeof(address->sun_path), "%s/%d.sock", directory,
			      (int)getpid());
	return length > 0 && (size_t)length < sizeof(address->sun_path);
}

/* The socket bound and listening, 0600, at its path; -1 on failure. */
static int listen_at(const struct sockaddr_un *address)
{
	int fd = move_up(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
	if (fd < 0)
		return -1;
	unlink(address->sun_path); /* a stale one of an earlier process with this pid */
	if (bind(fd, (const struct sockaddr *)address, sizeof(*address)) != 0 ||
	    chmod(address->sun_path, 0600) != 0 || listen(fd, 128) != 0) {
		int error = errno;
		close(fd);
		unlink(address->sun_path);
		errno = error;
		return -1;
	}
	return fd;
}

bool vt_control_start(void)
{
	if (descriptor_floor() < 0)
		return false; /* the program's few descriptors are all its own */
	struct sockaddr_un address = {0};
	if (!socket_path(&address))
		return false;
	int fd = listen_at(&address);
	struct stat status;
	if (fd < 0 || fstat(fd, &status) != 0) {
		vt_warn_once(&warned_socket, "cannot make the control socket %s: %s",
			     address.sun_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	endpoint.listener = fd;
	endpoint.device = status.st_dev;
	endpoint.inode = status.st_ino;
	vt_control_socket_file_keep(address.sun_path);
	pthread_t thread;
	if (!vt_background_start(&thread, serve)) {
		vt_warn_once(&warned_socket, "cannot start the control thread: %s",
			     strerror(errno));
		vt_control_remove();
		close(fd);
		endpoint.listener = -1;
		return false;
	}
	pthread_detach(thread);
	return true;
}

void vt_control_forget_after_fork(void)
{
	vt_control_socket_file_forget();
	if (endpoint.listener >= 0 && listener_is_ours())
		close(endpoint.listener);
	endpoint.listener = -1;
	int connection = atomic_exchange(&endpoint.connection, -1);
	if (connection >= 0)
		close(connection);
}
