/* libdw is the tracer's, and so are its failures. Out of host memory it
 * would end the program: its error() calls exit(1), its assertions abort,
 * a path that goes on with memory it failed to get faults, and ld.so aborts when
 * it cannot allocate libdw's (or libelf's) thread-local data on a thread's
 * first use. Installed on a copy of libdw the tracer loaded itself, the
 * guard points those two calls of libdw and libelf at its own: error()
 * leaves the symbolizing for the escape the caller set, and the
 * thread-local data lives in memory the tracer maps (a failed map escapes
 * too). The caller then names frames without libdw. */
#pragma once

#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>

/* Once, on a libdw kept loaded for good; libelf is NULL when the program
 * loaded it itself: its calls stay its own. */
void vt_libdw_guard_install(void *libdw, void *libelf);

/* Around every call into libdw: where an escape returns to (sigsetjmp
 * there with savemask 1 returned 1). */
void vt_libdw_guard_enter(sigjmp_buf *to);
void vt_libdw_guard_leave(void);

/* While a symbolizer is open: SIGSEGV and SIGBUS inside libdw escape too,
 * taken by the tracer's handlers (core/fault_escape.h) with no action
 * changed; anywhere else they reach the action they have. begin unblocks
 * them on this thread, end puts back the mask begin saved. */
void vt_libdw_guard_faults_begin(sigset_t *mask);
void vt_libdw_guard_faults_end(const sigset_t *mask);
