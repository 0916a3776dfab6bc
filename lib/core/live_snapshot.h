/* What was live on a device at one moment, by tag and by its top stacks:
 * taken when an allocation runs out of memory and when live bytes cross
 * the watermark. */
#pragma once

#include <stdint.h>

#include "counter.h"

/* Counters indexed by tag or stack id, grown on demand. */
struct vt_counter_array {
	struct vt_counter *items;
	uint32_t size;
};

struct vt_tag_bytes {
	uint32_t tag;
	uint64_t bytes;
};

struct vt_stack_bytes {
	uint32_t stack;
	uint64_t bytes;
};

/* What was live on a device when an allocation ran out of memory. */
struct vt_oom_snapshot {
	uint32_t tag_count;
	struct vt_tag_bytes *tags; /* every tag with live bytes, largest first */
	uint32_t stack_count;
	struct vt_stack_bytes *stacks; /* the top stacks by live bytes */
};

/* From a device's tag and stack counters, called with the device locked;
 * NULL when out of host memory. */
struct vt_oom_snapshot *vt_live_snapshot_take(const struct vt_counter_array *tags,
					      const struct vt_counter_array *stacks, unsigned top);
void vt_live_snapshot_free(const struct vt_oom_snapshot *snapshot);
