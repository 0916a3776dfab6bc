/* The one list of frames that say nothing about who allocated: CUDA's own
 * libraries and vramtrace (they sit between every caller and the driver),
 * and the C runtime's start-up. The module rules skip them, and so do the
 * summary, every format of the tool and the HTML pages (which are given
 * the list). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

extern const char *const vt_plumbing_modules[];   /* file name prefixes, NULL-terminated */
extern const char *const vt_plumbing_functions[]; /* NULL-terminated */

/* Whether the module at path (matched on its file name) is CUDA's own. */
bool vt_plumbing_module(const char *path);
/* Whether a frame of function in the module at path is plumbing. A nameless
 * frame of the C library is its start-up, named only by its debug file. */
bool vt_plumbing_frame(const char *path, const char *function);

/* Whether a frame is the program's own code, where a brief view of a stack
 * starts: for Python, a file outside installed packages and the standard
 * library; for native code, a module outside the system's and CUDA's
 * libraries. Otherwise library (at least size bytes) names what it is
 * part of ("numba", "libffi.so", "python3.12") for "via numba, 14 frames". */
bool vt_frame_own(const char *module, const char *file, bool python, char *library, size_t size);
