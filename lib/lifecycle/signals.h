/* Signals that end the process: the report is written on the way out. */
#pragma once

#include <signal.h>

/* Installs the handlers (at activation). Signals the program ignores stay
 * ignored; a program's own handler runs first and decides. */
void vt_signals_install(void);
/* Every signal whose default action ends the process and that vramtrace
 * writes a report for: SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM,
 * SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, and the faults
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, so abort() after an
 * out-of-memory error too).
 *
 * One the program handles is passed to its handler first, untouched, with
 * its mask: the program decides whether and how to end (exit() writes the
 * report), and may recover, as from SIGSEGV. One left at the default
 * action writes the report from the handler by the async-signal-safe path,
 * then takes that action, so the exit status is what it would have been. */
void vt_signals_ending(sigset_t *set);

/* Ends the process as signal_number's default action would. */
void vt_signals_take_default_action(int signal_number);
