/* The tracer's per-thread memory, mapped on a thread's first event instead
 * of held in static TLS (which every thread of the program pays for, and
 * which glibc takes out of each thread's stack): a stack of the tracer's own
 * for the deep part of an event (unwinding, Python frames, rules), with a
 * guard page below it, and the per-thread caches. Static TLS keeps only a
 * pointer to it. A thread that cannot get its space records without a
 * stack and without caches; the program's call is never failed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The caches each module keeps per thread, in bytes. */
enum vt_thread_cache {
	VT_CACHE_STACKS,      /* core/stacks.c: stack hash to id */
	VT_CACHE_PYTHON_CODE, /* sources/python.c: code object to id */
	VT_CACHE_WALK,        /* core/stack_walk.c: the last walk, for the next */
	VT_CACHE_COUNT,
};
#define VT_CACHE_STACKS_BYTES      4096
#define VT_CACHE_PYTHON_CODE_BYTES 28672
#define VT_CACHE_WALK_BYTES        16384

/* This thread's cache, zeroed when first handed out; NULL when the thread
 * has no space (or is past its exit). Never allocates after the first
 * call on a thread. */
void *vt_thread_cache(enum vt_thread_cache which);
/* The same, but NULL where the thread has no space yet: it never maps,
 * so it may run in a signal handler. */
void *vt_thread_cache_if_mapped(enum vt_thread_cache which);

/* Runs fn(arg) on this thread's tracer stack with the program's signals
 * held back, so that no handler of the program runs on the tracer's stack.
 * False, without running it, when the thread has no space. */
bool vt_thread_run_on_own_stack(void (*fn)(void *), void *arg);

/* While fn of vt_thread_run_on_own_stack runs: the tracer stack's bounds,
 * and an address at or below the program's stack pointer at the switch
 * (for a stack walk's bounds). False on the program's own stack. */
bool vt_thread_own_stack(uintptr_t *low, uintptr_t *high, uintptr_t *program_sp);

/* Runs fn(arg) on a stack of bytes mapped for this call alone (reserved,
 * backed only as used, unmapped after), with the program's signals held
 * back as above: for the tracer's deep work outside events (writing a
 * report, naming stacks with libdw), which must not depend on how much of
 * its own stack the program left (a small thread, a low RLIMIT_STACK).
 * False, without running it, when no such stack can be mapped. */
bool vt_run_on_mapped_stack(void (*fn)(void *), void *arg, size_t bytes);
/* What writing a report takes: libdw alone puts some 200 KiB of line
 * tables on the stack. */
#define VT_DEEP_STACK_BYTES (1024 * 1024)

/* Bytes of the tracer stack fn may use (for the tests' measure). */
#define VT_THREAD_STACK_BYTES (128 * 1024)
