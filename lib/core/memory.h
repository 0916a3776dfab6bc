/* Host memory for the tracer's own state, taken and given back with the
 * thread's signals blocked. A signal handler that interrupts malloc inside
 * the tracer may fork (glibc's fork takes malloc's locks), exit or
 * allocate, and would then wait for a lock this very thread holds; a
 * program's own malloc has the same hazard, but only the program's code
 * can create it. Each costs two system calls more than malloc: for the
 * hot path's rare allocations (a timeline row, a new stack, a larger
 * table), not for every event. */
#pragma once

#include <stddef.h>

void *vt_mem_alloc(size_t size);
void *vt_mem_calloc(size_t count, size_t size);
void *vt_mem_realloc(void *memory, size_t size);
void vt_mem_free(void *memory);
