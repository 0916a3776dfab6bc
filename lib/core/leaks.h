/* What is still allocated, grouped by device, call stack and tag. */
#pragma once

#include <stdint.h>

#include "tracker.h"

struct vt_leak {
	int device; /* CUDA ordinal, or VT_HOST_DEVICE */
	uint32_t stack;
	uint32_t tag;
	uint64_t count;
	uint64_t bytes;
};

struct vt_leaks {
	struct vt_leak *groups; /* largest first */
	uint64_t group_count;
	uint64_t allocations;
	uint64_t bytes;
};

/* Collects the groups from the live allocations. False when no host memory was left
 * (out is then empty). */
bool vt_leaks_collect(struct vt_tracker *tracker, struct vt_leaks *out);
/* A snapshot of the tracker and its leaks in one cut, so the leaks add up
 * to the snapshot's live bytes; false as for vt_leaks_collect (the snapshot
 * is taken all the same). */
bool vt_leaks_snapshot(struct vt_tracker *tracker, struct vt_snapshot *snapshot,
		       struct vt_leaks *out);
void vt_leaks_free(struct vt_leaks *leaks);
