/* A bounded history of one device's live bytes, for drawing and for truth:
 * a row per interval holds the exact lowest, highest and closing live bytes
 * over every event inside it, and the split by tag at its highest, so no
 * peak and no trough is lost. When the rows run out, neighbours merge and
 * the interval doubles.
 *
 * The split at the highest point is kept like the device's peak split: a
 * new high only bumps the timeline's epoch, and a tag whose mark is stale
 * has not changed since, so its live bytes are its bytes at the high; it
 * copies them aside before it next changes. No event scans the tags. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "counter.h"
#include "marks.h"

#define VT_TIMELINE_ROWS     1024
#define VT_TIMELINE_START_NS 10000 /* 10 us: a short run still shows its build-up */
/* The first 4 ms of a device's timeline are timed by the exact clock: the
 * coarse one ticks every 1 to 4 ms (HZ 1000 to 250) and would put a short
 * run's whole build-up in one row. Only those first milliseconds pay for
 * the exact clock. */
#define VT_TIMELINE_EXACT_NS 4000000

/* A row keeps the tags holding most at its max, the rest together under
 * VT_TAG_OTHER: a row costs the same with 5 tags or 70,000. */
#define VT_TIMELINE_ROW_TAGS 32

struct vt_timeline_tag {
	uint32_t tag;
	uint64_t bytes;
};

struct vt_timeline_row {
	uint64_t t_ns;       /* when the interval opened */
	uint64_t min;        /* the lowest live bytes in it, the level it opened at included */
	uint64_t max;        /* the highest */
	uint64_t end;        /* live bytes when it closed (or now, for the open row) */
	uint64_t history_at; /* the device history's changes when it opened (history.h) */
	uint32_t tag_count;
	/* The tags with live bytes at max, largest first, at most
	 * VT_TIMELINE_ROW_TAGS; NULL while the row is open. */
	struct vt_timeline_tag *tags;
};

struct vt_timeline {
	struct vt_timeline_row *rows; /* VT_TIMELINE_ROWS, allocated on first use */
	uint32_t count;               /* the last row is the open one */
	uint64_t interval_ns;
	uint64_t opened_ns;      /* the open row's start on the cheap clock */
	uint64_t exact_until_ns; /* rows open on the exact clock before this */
	struct vt_marks tags;    /* the split at the open row's max */
};

/* Whether the open row still runs at now_ns, so that an event has no row
 * to close. Inline: every event asks, and nearly always it does. */
static inline bool vt_timeline_row_runs(const struct vt_timeline *timeline, uint64_t now_ns)
{
	return timeline->count && now_ns - timeline->opened_ns < timeline->interval_ns;
}

/* Before an event changes anything: closes the open row once now_ns (a
 * cheap, coarse clock) is an interval past its opening, and opens the next
 * at the exact time open_ns() gives. live and tags are the device's, as
 * they stand before the event. */
void vt_timeline_advance(struct vt_timeline *timeline, uint64_t now_ns, uint64_t (*open_ns)(void *),
			 void *context, uint64_t live, const struct vt_counter *tags,
			 uint32_t tag_count, uint64_t history_at);
/* Before tag's counter changes from live bytes. */
void vt_timeline_tag_changing(struct vt_timeline *timeline, uint32_t tag, uint64_t live);
/* After the event: the device's live bytes now. */
void vt_timeline_after(struct vt_timeline *timeline, uint64_t live);
/* A deep copy (for snapshots), the open row's split filled in from tags;
 * an empty timeline when memory runs out. */
struct vt_timeline vt_timeline_copy(const struct vt_timeline *timeline,
				    const struct vt_counter *tags, uint32_t tag_count);
void vt_timeline_free(struct vt_timeline *timeline);
