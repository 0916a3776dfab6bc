/* The control endpoint's requests (control/endpoint.c), answered with the
 * library's report of this moment. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Writes the report of this moment to fd, the client's socket; when
 * reset_peak, a new peak interval begins once it is taken. No write is
 * begun once CLOCK_MONOTONIC passes deadline_ns. True once written.
 * Called on the endpoint's own thread (every signal blocked), only after
 * activation, never from a signal handler; an ending removes the socket
 * first, so no new client finds it, but a request taken before may still
 * be answered meanwhile. It may allocate, take the tracker's locks as a
 * dump does and ask the driver and NVML; it takes the tracer's recursion
 * guard itself. */
bool vt_library_control_snapshot(int fd, bool reset_peak, uint64_t deadline_ns);
