/* vramtrace's own stack walk over the loaded code's unwind tables, for
 * x86_64: it opens no descriptor, allocates nothing and takes no lock
 * (glibc 2.35 and later), so it may run in a signal handler. Each code
 * address's rule is found once and kept (unwind_cache.h); a frame then
 * costs a lookup and two loads. Every stack read is checked against the
 * stacks the thread may be on: the tracer's own (thread_space.h), the
 * thread's, a signal stack. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* False where there is no such walk (another architecture). */
bool vt_stack_walk_available(void);
/* Up to depth return addresses, innermost first, leaving out those in
 * [own_start, own_end): frames[0] is where the caller of vt_stack_walk
 * was itself called from, as glibc's backtrace gives it in that caller.
 * That caller must be a frame of its own: not inlined, no tail call. */
unsigned vt_stack_walk(uintptr_t *frames, unsigned depth, uintptr_t own_start, uintptr_t own_end);
/* Steps this thread's last walk took over from its memo of an earlier
 * walk, as still holding (for the tests' measure of that memo). */
unsigned vt_stack_walk_steps_reused(void);
/* The loader's count of objects loaded so far (dlopen), as this thread's
 * last walk read it (read now where there is no walk): a caller learns of
 * new code at no cost of its own. */
unsigned long long vt_stack_walk_loads(void);

/* A walk that differs from the memo takes its place only when this many
 * walks in a row have differed (stack_walk.c says why). */
#define VT_STACK_WALK_MEMO_ADOPT_AFTER 8
