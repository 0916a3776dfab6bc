/* The program's own requests through the public API (interpose/api.c,
 * which activates the tracer first for a dump or a window): a dump, a
 * window's peak. Each answers false (or -1) where nothing is traced. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* A report now, to path or a name of its own. */
bool vt_library_dump(const char *path);
bool vt_library_window_begin(void);
long long vt_library_window_peak(char *where, size_t size);
