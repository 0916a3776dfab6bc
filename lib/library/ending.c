#define _GNU_SOURCE
#include "ending.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "socket_file.h"
#include "../no_cancel.h"
#include "../sources/call.h"
#include "../sources/context_end.h"
#include "../sources/nvml_view.h"
#include "ending_signals.h"
#include "state.h"
#include "writer.h"

/* The final report: OPEN until one is being written, CLOSING while it is,
 * CLOSED once it is on disk. A signal that arrives meanwhile on another
 * thread waits for it rather than cut it short. */
enum { REPORT_OPEN, REPORT_CLOSING, REPORT_CLOSED };
static atomic_int final_state;
static atomic_int closing_thread;

/* An ending signal that came, on another thread, while this one wrote the
 * final report: its action is taken once the report is on disk, before the
 * process could exit with a status of its own. */
static atomic_int deferred_signal;

/* The signal whose final report is being written or was: the process dies
 * of it, as it would have of the first one without vramtrace. */
static atomic_int fatal_signal;

/* -1 until the program's exit status is known; the thread that is
 * exiting. */
static atomic_int exit_status = -1;
static atomic_int exiting_thread;

static bool try_closing(void)
{
	int open = REPORT_OPEN;
	if (!atomic_compare_exchange_strong(&final_state, &open, REPORT_CLOSING))
		return false;
	atomic_store(&closing_thread, (int)gettid());
	return true;
}

/* The right to write: a report being written on another thread is waited
 * for (five seconds at most); when it was final, there is nothing to add. */
static bool begin_closing(void)
{
	if (try_closing())
		return true;
	for (int i = 0; i < 500 && atomic_load(&final_state) == REPORT_CLOSING &&
			atomic_load(&closing_thread) != (int)gettid();
	     i++) {
		struct timespec pause = {0, 10 * 1000 * 1000};
		nanosleep(&pause, NULL);
	}
	return try_closing();
}

/* The report written as from a signal handler, which may have interrupted
 * anything, malloc and every lock included: it waits only a bounded while
 * for the tracker's locks and writes with write(2) from static memory. A
 * final one closes the report; any other (the process may yet live on) is
 * replaced by the next. */
static void write_unlocked(const char *ended_by, bool final, int signal_number)
{
	if (!vt_library_traces_here())
		return;
	if (final)
		vt_control_remove();
	if (!begin_closing())
		return;
	if (final && signal_number)
		atomic_store(&fatal_signal, signal_number);
	vt_write(final ? VT_WRITE_SIGNAL : VT_WRITE_SIGNAL_SURVIVABLE, ended_by, NULL);
	atomic_store(&final_state, final ? REPORT_CLOSED : REPORT_OPEN);
}

/* Inside a CUDA call the driver's locks may be held: it is not asked. */
static void write_locked(const char *ended_by)
{
	bool ask_driver = !vt_call_in_progress();
	VT_TRACER_WORK();
	pthread_mutex_lock(&vt_library.report_lock);
	atomic_store(&vt_library.stopping, true);
	vt_nvml_stop(ask_driver);
	if (begin_closing()) {
		vt_write(ask_driver ? VT_WRITE_FINAL : VT_WRITE_FINAL_NO_DRIVER, ended_by, NULL);
		atomic_store(&final_state, REPORT_CLOSED);
	}
	pthread_mutex_unlock(&vt_library.report_lock);
}

/* The report for good: at exit or before exec. The signals that end a
 * process wait until it is written. When this thread was interrupted inside
 * the tracer (exit() from a signal handler), the tracer's locks may be held
 * by this very thread, so the report is written as from a signal handler. */
static void write_final(const char *ended_by)
{
	VT_NO_CANCEL();
	sigset_t ending, previous;
	vt_ending_signals_fill(&ending);
	pthread_sigmask(SIG_BLOCK, &ending, &previous);
	if (vt_tracer_busy)
		write_unlocked(ended_by, true, 0);
	else
		write_locked(ended_by);
	pthread_sigmask(SIG_SETMASK, &previous, NULL);
	int signal_number = atomic_exchange(&deferred_signal, 0);
	if (signal_number)
		vt_ending_signals_default_action(signal_number);
}

void vt_library_emergency(int signal_number, bool final)
{
	VT_NO_CANCEL();
	if (final && atomic_load(&final_state) == REPORT_CLOSING &&
	    atomic_load(&closing_thread) != (int)gettid())
		atomic_store(&deferred_signal, signal_number);
	/* "signal N" without snprintf: this runs in a signal handler. */
	char ended_by[32] = "signal ";
	size_t at = strlen(ended_by);
	if (signal_number >= 10)
		ended_by[at++] = (char)('0' + signal_number / 10);
	ended_by[at++] = (char)('0' + signal_number % 10);
	ended_by[at] = '\0';
	write_unlocked(ended_by, final, signal_number);
	/* A signal that came on another thread while this one's report was
	 * written: that thread ends the process, of its signal, now. */
	for (int i = 0; final && i < 500 && atomic_load(&fatal_signal) &&
			atomic_load(&fatal_signal) != signal_number;
	     i++) {
		struct timespec pause = {0, 10 * 1000 * 1000};
		nanosleep(&pause, NULL);
	}
}

void vt_library_before_exec(void)
{
	if (!vt_library_traces_here())
		return;
	int saved_errno = errno;
	/* The control socket stays: should the exec fail, the process goes on
	 * answering; should it succeed, the listener closes with the old image
	 * (close-on-exec), and the new one, traced, binds the same path (its
	 * pid), or a client finds the socket refusing and removes it. */
	write_final("exec");
	/* Should the exec fail, the process goes on, and so do its report and
	 * the device's readings: under the report's lock, as they stopped, so
	 * that two threads whose execs fail together resume the sampler once.
	 * A thread interrupted inside the tracer may hold that lock; its
	 * report stopped no sampler. */
	bool locked = !vt_tracer_busy;
	if (locked)
		pthread_mutex_lock(&vt_library.report_lock);
	atomic_store(&final_state, REPORT_OPEN);
	atomic_store(&vt_library.stopping, false);
	if (locked) {
		vt_nvml_resume();
		pthread_mutex_unlock(&vt_library.report_lock);
	}
	errno = saved_errno;
}

/* The first thread to exit gives the status; should it call exit again
 * (from an atexit handler or a destructor, or quick_exit), glibc ends the
 * process with the later status, and so does the report. */
void vt_library_note_exit(int status)
{
	int unknown = -1, self = (int)gettid();
	if (atomic_compare_exchange_strong(&exit_status, &unknown, status & 0xff))
		atomic_store(&exiting_thread, self);
	else if (atomic_load(&exiting_thread) == self)
		atomic_store(&exit_status, status & 0xff);
	vt_context_end_note_program_ended();
}

__attribute__((destructor)) void vt_library_finish(void)
{
	if (!vt_library_traces_here())
		return;
	int saved_errno = errno;
	char ended_by[32] = "exit";
	int status = atomic_load(&exit_status);
	if (status >= 0)
		snprintf(ended_by, sizeof(ended_by), "exit %d", status);
	vt_control_remove(); /* a process about to end takes no more requests */
	write_final(ended_by);
	errno = saved_errno;
}

void vt_library_finish_unless_written(void)
{
	if (atomic_load(&final_state) != REPORT_CLOSED)
		vt_library_finish();
}

void vt_ending_forget(void)
{
	atomic_store(&exit_status, -1);
	atomic_store(&exiting_thread, 0);
	atomic_store(&final_state, REPORT_OPEN);
	atomic_store(&fatal_signal, 0);
}
