/* The signals whose default action ends the process, and that action
 * taken: what the final report's writer holds off while it writes
 * (ending.c), and what the tracer's handlers stand in for
 * (lifecycle/signals.c). Everything here is async-signal-safe. */
#pragma once

#include <signal.h>
#include <stddef.h>

/* SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
 * SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT,
 * SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS; the
 * real-time ones, which follow from SIGRTMIN to SIGRTMAX, are not listed. */
extern const int vt_ending_signal_numbers[];
extern const size_t vt_ending_signal_count;

/* All of them, the real-time ones included. */
void vt_ending_signals_fill(sigset_t *set);
/* Ends the process as signal_number's default action would. */
void vt_ending_signals_default_action(int signal_number);
/* The sigaction behind the exported one (a sanitizer's, when there is
 * one, else libc's own), found on first use. */
int vt_real_sigaction(int signal_number, const struct sigaction *action, struct sigaction *old);
