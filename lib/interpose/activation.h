/* Activation: on the first CUDA call (the hook wrappers, cuGetProcAddress,
 * a dump or window the program asks for), the configuration is read and
 * every part of the tracer started, CUPTI last; until then loading costs
 * nothing. Whether it is done is sources/tracking.h's vt_tracking_active. */
#pragma once

#include <stdbool.h>

/* Cheap after the first call; errno is kept. Not from a signal handler
 * before the first call has returned. */
void vt_activate(void);
