/* Signals that end the process: the report is written on the way out. */
#pragma once

#include <signal.h>
#include <stdbool.h>

/* Installs the handlers (at activation) for every signal whose default
 * action ends the process: SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP,
 * SIGABRT, SIGBUS, SIGFPE, SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM,
 * SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR,
 * SIGSYS and the real-time signals, so abort() after an out-of-memory
 * error too.
 *
 * Only a signal left at its default action gets the tracer's handler: it
 * writes the report by the async-signal-safe path, on the tracer's
 * alternate stack, then takes that action, so the process ends as it
 * would have (same signal, same core dump). A signal the program handles
 * or ignores stays the program's, untouched: its handler runs on the
 * stack it asked for, and decides (exit() writes the report). */
void vt_signals_install(void);
/* Whether the tracer's handler is signal_number's now. */
bool vt_signals_tracer_handles(int signal_number);

/* The sigaction vramtrace exports, for the other ways to set an action
 * (signal_calls.c): where the tracer's handler stands in for the program's
 * action, the program is shown its own. */
int vt_signals_action(int signal_number, const struct sigaction *action, struct sigaction *old);

/* Gives the calling thread the tracer's alternate stack (256 KiB and a
 * guard page), unless it has one, so that the report is written after a
 * stack overflow on any thread; it is unmapped when the thread ends. */
void vt_signals_prepare_thread(void);
