/* Activation: on the first CUDA call, the configuration is read and every
 * part of the tracer started; until then loading costs nothing. */
#pragma once

#include <stdbool.h>

/* Cheap after the first call; errno is kept. */
void vt_library_activate(void);
/* Whether this process traces (it used CUDA). */
bool vt_library_active(void);
