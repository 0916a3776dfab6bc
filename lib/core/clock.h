#pragma once

#include <stdint.h>

/* Monotonic nanoseconds; differences of these give "when" in the report. */
uint64_t vt_clock_ns(void);
/* The same clock at the kernel tick's resolution (a few ms), at a fifth of
 * the cost: for deciding when, not for saying when. */
uint64_t vt_clock_coarse_ns(void);
/* Wall-clock time as RFC 3339 UTC with milliseconds, into buf (>= 32). */
void vt_clock_wall_string(char *buf, unsigned size);
