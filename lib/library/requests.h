/* The program's own requests through the public API: a dump, a window's
 * peak. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* A report now, to path or a name of its own. */
bool vt_library_dump(const char *path);
bool vt_library_window_begin(void);
long long vt_library_window_peak(char *where, size_t size);
