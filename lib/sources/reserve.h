/* Memory a CUDA allocator keeps reserved beside what its allocations use,
 * as the driver reports it for stream-ordered pools and for graphs. */
#pragma once

#include <stdint.h>

#include "driver_query.h"

struct vt_reserve_view {
	uint64_t reserved, reserved_peak;
	uint64_t used, used_peak;
};

/* The driver's high-water marks may have been reset by the program, so
 * the peaks are the most of every reading. */
static inline void vt_reserve_update(struct vt_reserve_view *view,
				     const struct vt_reserve_figures *figures)
{
	uint64_t reserved_high = figures->reserved > figures->reserved_high
					 ? figures->reserved
					 : figures->reserved_high;
	uint64_t used_high =
		figures->used > figures->used_high ? figures->used : figures->used_high;
	view->reserved = figures->reserved;
	view->used = figures->used;
	if (reserved_high > view->reserved_peak)
		view->reserved_peak = reserved_high;
	if (used_high > view->used_peak)
		view->used_peak = used_high;
}
