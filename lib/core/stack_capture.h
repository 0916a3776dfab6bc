/* Native call stacks at the moment of an allocation, without vramtrace's
 * own frames. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Readies the walk and learns where vramtrace's own code lies, from a
 * function inside it (NULL skips nothing). False when there is no way to
 * walk: stacks are then empty. */
bool vt_stack_capture_init(const void *own_function);
/* Up to depth return addresses, innermost first, without those in
 * vramtrace; returns how many were written. frames[0] is where the caller
 * was called from, as glibc's backtrace() in the caller gives its second
 * frame. Safe in a signal handler on x86_64: no lock (glibc 2.35 and
 * later), no allocation, no descriptor. */
unsigned vt_stack_capture(uintptr_t *frames, unsigned depth);
