/* Finding libvramtrace.so and the simulated device beside this binary, in
 * the build tree or after `meson install`. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

bool vt_locate_library(char *out, size_t size);
bool vt_locate_simulator(char *out, size_t size);
/* The directory holding the vramtrace Python package. */
bool vt_locate_python(char *out, size_t size);
