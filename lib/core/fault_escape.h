/* A thread's way out of a fault raised inside code of the tracer's that
 * may fault (libdw going on with memory it failed to get): set around such
 * calls, and taken by the tracer's handlers of SIGSEGV and SIGBUS before
 * anything else, so that no action of the program's is ever changed for
 * it. */
#pragma once

#include <setjmp.h>
#include <signal.h>

/* Where this thread's fault returns to (sigsetjmp there with savemask 1
 * returned 1); NULL: none. */
void vt_fault_escape_set(sigjmp_buf *to);
sigjmp_buf *vt_fault_escape_current(void);

/* In a handler of SIGSEGV or SIGBUS, first: leaves by siglongjmp where
 * this thread set a way out and the kernel raised the signal for a fault
 * (not one sent by kill or raise); returns otherwise. Safe in a signal
 * handler. */
void vt_fault_escape_take(int signal_number, const siginfo_t *info);
