/* The stacks live at each timeline row's highest point, exactly, replayed
 * from a device's history at report time (never on the hot path): the
 * largest VT_MOMENT_STACKS, and the rest of the row's highest bytes (other
 * stacks, allocations with no stack) together, so they add up to it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "history.h"
#include "live_snapshot.h"
#include "timeline.h"

#define VT_MOMENT_STACKS 20

struct vt_moment {
	bool kept; /* false: the history ended before the row's highest point */
	uint32_t count;
	struct vt_stack_bytes stacks[VT_MOMENT_STACKS]; /* largest first */
	uint64_t other; /* the row's highest less the listed stacks */
};

/* One moment per row of timeline, from the first history->changes
 * (at most bound) records; NULL when memory runs out or nothing is kept. */
struct vt_moment *vt_moments_replay(const struct vt_history *history,
				    const struct vt_timeline *timeline);

/* The high point of the bytes several stacks held together, for each of
 * set_count sets: set_of[stack] is its set's index plus one (0: in none),
 * for the stacks below stack_count. Exact, from a history that kept every
 * change; false (peaks untouched) when it did not or memory ran out. */
bool vt_sets_replay(const struct vt_history *history, const uint32_t *set_of, uint32_t stack_count,
		    uint32_t set_count, uint64_t *peaks);
