#include "background.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How often a thread looks up from a long pause to see whether the
 * program is gone. */
#define WATCH_MS 50

static atomic_uint running;
static atomic_bool main_exited;
static _Atomic(void (*)(void)) farewell;

bool vt_background_start(pthread_t *thread, void *(*run)(void *))
{
	sigset_t all, previous;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &previous);
	atomic_fetch_add(&running, 1);
	int rc = pthread_create(thread, NULL, run, NULL);
	if (rc != 0)
		atomic_fetch_sub(&running, 1);
	pthread_sigmask(SIG_SETMASK, &previous, NULL);
	if (rc != 0)
		errno = rc;
	return rc == 0;
}

/* The process's thread count, from /proc/self/stat's twentieth field. */
static long thread_count(void)
{
	char text[1024];
	FILE *stat = fopen("/proc/self/stat", "re");
	if (!stat)
		return -1;
	size_t got = fread(text, 1, sizeof(text) - 1, stat);
	fclose(stat);
	text[got] = '\0';
	/* The command name may hold spaces and parentheses: count from the
	 * last ')'. */
	char *at = strrchr(text, ')');
	long threads = -1;
	for (int field = 2; at && field < 20; field++)
		at = strchr(at + 1, ' ');
	if (at)
		sscanf(at + 1, "%ld", &threads);
	return threads;
}

bool vt_background_caller_is_the_last(void)
{
	long threads = thread_count();
	return threads >= 0 && (unsigned long)threads <= atomic_load(&running) + 1;
}

bool vt_background_should_leave(void)
{
	if (!atomic_load_explicit(&main_exited, memory_order_relaxed))
		return false;
	/* The main thread stays counted, a zombie, until the process ends.
	 * Where /proc cannot be read (a chroot without it, a sandbox), the
	 * count is unknown: the tracer's threads leave now rather than keep
	 * alive a process whose threads have all ended; the program's last
	 * thread still ends it, and its exit writes the report. */
	long threads = thread_count();
	unsigned own = atomic_load(&running);
	if (threads >= 0 && (unsigned long)threads > own + 1)
		return false;
	void (*last_words)(void) = atomic_exchange(&farewell, NULL);
	if (last_words && threads >= 0)
		last_words();
	atomic_fetch_sub(&running, 1);
	return true;
}

bool vt_background_pause(unsigned milliseconds)
{
	do {
		unsigned slice = milliseconds < WATCH_MS ? milliseconds : WATCH_MS;
		struct timespec pause = {slice / 1000, (long)(slice % 1000) * 1000000};
		while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
			;
		if (vt_background_should_leave())
			return false;
		milliseconds -= slice;
	} while (milliseconds > 0);
	return true;
}

void vt_background_done(void)
{
	atomic_fetch_sub(&running, 1);
}

void vt_background_note_main_exited(void)
{
	atomic_store(&main_exited, true);
}

void vt_background_on_program_gone(void (*last_words)(void))
{
	atomic_store(&farewell, last_words);
}

bool vt_background_take_farewell(void)
{
	return atomic_exchange(&farewell, NULL) != NULL;
}

void vt_background_reset(void)
{
	atomic_store(&running, 0);
	atomic_store(&main_exited, false);
	atomic_store(&farewell, NULL);
}
