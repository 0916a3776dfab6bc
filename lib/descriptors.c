#include "descriptors.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "no_cancel.h"

static struct {
	bool open;
	dev_t device;
	ino_t inode;
} original_stderr;

/* Before main: the standard error the program was started with. */
__attribute__((constructor)) void vt_stderr_remember(void)
{
	struct stat status;
	int saved_errno = errno;
	if (fstat(STDERR_FILENO, &status) == 0) {
		original_stderr.open = true;
		original_stderr.device = status.st_dev;
		original_stderr.inode = status.st_ino;
	}
	errno = saved_errno;
}

static bool stderr_is_original(void)
{
	struct stat status;
	return original_stderr.open && fstat(STDERR_FILENO, &status) == 0 &&
	       status.st_dev == original_stderr.device && status.st_ino == original_stderr.inode;
}

/* What writing may raise: SIGPIPE on a closed pipe, SIGXFSZ past
 * RLIMIT_FSIZE. Both are sent to the writing thread, so holding them back
 * here keeps them from the program; the write only fails. */
static sigset_t write_signals(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigaddset(&set, SIGXFSZ);
	return set;
}

void vt_quiet_begin(struct vt_stderr_guard *guard)
{
	int saved_errno = errno;
	sigset_t held = write_signals(), pending;
	pthread_sigmask(SIG_BLOCK, &held, &guard->mask);
	sigpending(&pending);
	guard->sigpipe_pending = sigismember(&pending, SIGPIPE);
	guard->sigxfsz_pending = sigismember(&pending, SIGXFSZ);
	errno = saved_errno;
}

static void take_back(int signal_number)
{
	sigset_t just;
	sigemptyset(&just);
	sigaddset(&just, signal_number);
	struct timespec none = {0, 0};
	sigtimedwait(&just, NULL, &none);
}

void vt_quiet_end(const struct vt_stderr_guard *guard)
{
	int saved_errno = errno;
	sigset_t pending;
	sigpending(&pending);
	/* One raised by our own write is taken back unseen. */
	if (sigismember(&pending, SIGPIPE) && !guard->sigpipe_pending)
		take_back(SIGPIPE);
	if (sigismember(&pending, SIGXFSZ) && !guard->sigxfsz_pending)
		take_back(SIGXFSZ);
	pthread_sigmask(SIG_SETMASK, &guard->mask, NULL);
	errno = saved_errno;
}

bool vt_stderr_begin(struct vt_stderr_guard *guard)
{
	int saved_errno = errno;
	bool usable = stderr_is_original();
	if (usable)
		vt_quiet_begin(guard);
	errno = saved_errno;
	return usable;
}

void vt_stderr_end(const struct vt_stderr_guard *guard)
{
	vt_quiet_end(guard);
}

/* How long our lines wait, all together, for room in a standard error that
 * nobody drains (a pipe its reader reads only once the program has ended):
 * past it the rest is dropped, where a blocking write would hold the
 * program's end for ever. */
#define STDERR_WAIT_MS 2000
/* Once waited out, later lines wait no more. */
static atomic_bool stderr_stuck;

static long milliseconds_since(const struct timespec *start)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

void vt_stderr_write(const char *text, size_t length)
{
	struct vt_stderr_guard guard;
	if (!vt_stderr_begin(&guard))
		return;
	VT_NO_CANCEL();
	int saved_errno = errno;
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (length > 0) {
		/* Written only once there is room, at most PIPE_BUF at a time,
		 * which a pipe with room takes without waiting. */
		long waited = milliseconds_since(&start);
		long limit = atomic_load(&stderr_stuck) ? 0 : STDERR_WAIT_MS;
		struct pollfd room = {STDERR_FILENO, POLLOUT, 0};
		int ready = poll(&room, 1, waited < limit ? (int)(limit - waited) : 0);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready == 0)
			atomic_store(&stderr_stuck, true);
		if (ready <= 0)
			break;
		ssize_t wrote = write(STDERR_FILENO, text, length < PIPE_BUF ? length : PIPE_BUF);
		if (wrote < 0 && errno == EINTR)
			continue;
		if (wrote <= 0)
			break;
		text += wrote;
		length -= (size_t)wrote;
	}
	errno = saved_errno;
	vt_stderr_end(&guard);
}

unsigned vt_low_fds_fill(void)
{
	int saved_errno = errno;
	unsigned filled = 0;
	for (int fd = 0; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		int opened = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (opened < 0)
			break;
		if (opened != fd) {
			/* A lower one was filled meanwhile by another thread. */
			close(opened);
			break;
		}
		filled |= 1u << fd;
	}
	errno = saved_errno;
	return filled;
}

void vt_low_fds_release(unsigned filled)
{
	int saved_errno = errno;
	for (int fd = 0; fd <= STDERR_FILENO; fd++)
		if (filled & (1u << fd))
			close(fd);
	errno = saved_errno;
}
