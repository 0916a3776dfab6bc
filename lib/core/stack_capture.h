/* Native call stacks at the moment of an allocation, without vramtrace's
 * own frames. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Opens the unwinder (with per-thread caches) and learns where vramtrace's
 * own code lies, from a function inside it (NULL skips nothing). False
 * when no unwinder could be loaded: stacks are then empty. */
bool vt_stack_capture_init(const void *own_function);
/* Up to depth return addresses, innermost first, without those in
 * vramtrace; returns how many were written. */
unsigned vt_stack_capture(uintptr_t *frames, unsigned depth);
