/* The tracer's own threads (the NVML sampler, the checkpoint writer). They
 * take none of the program's signals, and they never keep alive a process
 * whose own threads have all ended: a program whose main() calls
 * pthread_exit ends when its last thread does, with or without vramtrace. */
#pragma once

#include <pthread.h>
#include <stdbool.h>

/* Starts run on a new thread with every signal blocked. */
bool vt_background_start(pthread_t *thread, void *(*run)(void *));
/* Sleeps up to milliseconds; false when the thread must return now,
 * because only the tracer's threads are left in the process. */
bool vt_background_pause(unsigned milliseconds);
/* The test vt_background_pause makes, for threads that wait otherwise:
 * true, and the thread no longer counts as running, when it must return. */
bool vt_background_should_leave(void);
/* A thread of vt_background_start's ending of its own accord, not because
 * vt_background_should_leave said so: no longer counted. */
void vt_background_done(void);
/* main() called pthread_exit: from now on the threads watch for being the
 * last ones. */
void vt_background_note_main_exited(void);
/* Called once, on the first of the tracer's threads to find the program's
 * threads all gone after main's exit, before it leaves: where no thread of
 * the program ran an exit (the main thread left by SYS_exit), that is the
 * last moment the process is there to write its report. */
void vt_background_on_program_gone(void (*farewell)(void));
/* Takes the function back before any thread called it: true if it was
 * still there. */
bool vt_background_take_farewell(void);
/* Whether the calling thread is the program's last: besides it, only the
 * tracer's threads run. */
bool vt_background_caller_is_the_last(void);
/* The child after fork has none of the parent's threads. */
void vt_background_reset(void);
