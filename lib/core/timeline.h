/* A bounded history of one device's live bytes, with the split by tag, for
 * drawing. A row per interval: the interval's highest live bytes (so no
 * peak is lost) and the tags as they stood when it opened. When the rows
 * run out, neighbours merge and the interval doubles. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "counter.h"

#define VT_TIMELINE_ROWS     1024
#define VT_TIMELINE_START_NS 100000 /* 100 us */
/* The clock is read once in this many notes: reading it costs more than
 * all the rest of an event (a system call on some virtual machines). */
#define VT_TIMELINE_STRIDE 64

struct vt_timeline_row {
	uint64_t t_ns;
	uint64_t live; /* the highest live bytes in the interval */
	uint32_t tag_count;
	uint64_t *tags; /* live bytes by tag id when the row opened */
};

struct vt_timeline {
	struct vt_timeline_row *rows; /* VT_TIMELINE_ROWS, allocated on first use */
	uint32_t count;
	uint32_t countdown; /* notes left before the clock is read again */
	uint64_t interval_ns;
};

/* Records live bytes at t_ns; tags are the device's tag counters. */
void vt_timeline_note(struct vt_timeline *timeline, uint64_t t_ns, uint64_t live,
		      const struct vt_counter *tags, uint32_t tag_count);
/* Between clock readings: raises the open row's live bytes, and says
 * (true) when it is time to read the clock and call vt_timeline_note. */
bool vt_timeline_due(struct vt_timeline *timeline, uint64_t live);
/* A deep copy (for snapshots); an empty timeline when memory runs out. */
struct vt_timeline vt_timeline_copy(const struct vt_timeline *timeline);
void vt_timeline_free(struct vt_timeline *timeline);
