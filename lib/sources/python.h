/* The allocating thread's Python frames, read from its own frame chain
 * without the GIL: the thread is inside a C call made from those frames,
 * so they cannot change until it returns. Nothing here takes the GIL, runs
 * Python code or allocates a Python object. The interpreter is found at
 * run time, linked into the executable or loaded as libpython (before or
 * after the first CUDA call); CPython 3.9 to 3.13 are read, other versions and free-threaded builds
 * get one warning and native stacks only. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* At activation: finds the interpreter. False without one, or with one
 * whose frames are not read. */
bool vt_python_init(unsigned max_frames);
/* Where vt_python_init found none: whether an interpreter loaded since
 * (dlopen of libpython after the first CUDA call) is now found, given the
 * loader's count of loads now; it searches again each time that count has
 * moved. */
bool vt_python_found_late(unsigned long long loads);
/* Whether pc lies in the interpreter's evaluation loop: each such native
 * frame ran one run of Python frames. */
bool vt_python_is_eval_pc(uintptr_t pc);
/* This thread's Python frames, innermost first, as vt_py_frame words, at
 * most max; runs[] receives the count of frames in each run of frames one
 * evaluation loop ran, innermost first (at most max_runs). Returns the
 * number of frames; *run_count the number of runs. */
unsigned vt_python_frames(uintptr_t *frames, unsigned max, unsigned *runs, unsigned max_runs,
			  unsigned *run_count);
