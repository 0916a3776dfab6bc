/* Counters' values as they stood at a high point, kept without scanning
 * them: a new high only bumps the epoch, and a counter whose mark is stale
 * has not changed since, so its live value is its value at the high; it
 * copies that aside before it next changes (the device peak's split works
 * the same way, inside each counter). Used for the timeline's split by tag
 * at a row's highest point, and for a window's stacks at its peak. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct vt_mark {
	uint64_t at_high;
	uint32_t epoch;
};

struct vt_marks {
	uint32_t epoch;
	uint32_t size;
	struct vt_mark *items;
};

/* The values now are the ones to keep. */
static inline void vt_marks_high(struct vt_marks *marks)
{
	marks->epoch++;
}

/* Makes room for counter index; false when memory runs out. */
bool vt_marks_grow(struct vt_marks *marks, uint32_t index);

/* Before counter index changes from live. Out of memory, the counter's
 * later value is read instead. Inline: every event passes here. */
static inline void vt_marks_changing(struct vt_marks *marks, uint32_t index, uint64_t live)
{
	if (index >= marks->size && !vt_marks_grow(marks, index))
		return;
	struct vt_mark *mark = &marks->items[index];
	if (mark->epoch != marks->epoch) {
		mark->at_high = live;
		mark->epoch = marks->epoch;
	}
}
/* Counter index's value at the high, its live value now being live. */
uint64_t vt_marks_value(const struct vt_marks *marks, uint32_t index, uint64_t live);
void vt_marks_free(struct vt_marks *marks);
