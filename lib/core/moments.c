#include "moments.h"

#include <stdlib.h>
#include <string.h>

#include "top.h"

/* Pass one: the number of records applied when each row first reached
 * its highest (UINT64_MAX: not within the kept records). */
static void find_highs(const struct vt_history_record *records, uint64_t kept,
		       const struct vt_timeline *timeline, uint64_t total, uint64_t *high)
{
	uint64_t live = 0, applied = 0;
	for (uint32_t i = 0; i < timeline->count; i++) {
		const struct vt_timeline_row *row = &timeline->rows[i];
		uint64_t end = i + 1 < timeline->count ? timeline->rows[i + 1].history_at : total;
		high[i] = UINT64_MAX;
		while (applied < row->history_at && applied < kept)
			live += records[applied++].bytes;
		if (applied < row->history_at)
			continue;
		if (live == row->max) {
			high[i] = applied;
			continue;
		}
		while (applied < end && applied < kept) {
			live += records[applied++].bytes;
			if (live == row->max) {
				high[i] = applied;
				break;
			}
		}
	}
}

/* The stacks holding bytes, kept dense so a moment reads only them. */
struct live_stacks {
	uint64_t *bytes;    /* by stack id */
	uint32_t *position; /* in ids, plus one; 0 when not holding */
	uint32_t *ids;
	uint32_t count;
};

static void apply(struct live_stacks *live, const struct vt_history_record *record)
{
	uint32_t id = record->stack;
	live->bytes[id] += record->bytes;
	if (!id)
		return;
	if (live->bytes[id] && !live->position[id]) {
		live->ids[live->count++] = id;
		live->position[id] = live->count;
	} else if (!live->bytes[id] && live->position[id]) {
		uint32_t last = live->ids[--live->count];
		live->ids[live->position[id] - 1] = last;
		live->position[last] = live->position[id];
		live->position[id] = 0;
	}
}

static uint64_t held(uint32_t index, const void *context)
{
	const struct live_stacks *live = context;
	return live->bytes[live->ids[index]];
}

static void take(const struct live_stacks *live, uint64_t max, struct vt_moment *out)
{
	struct vt_top_entry scratch[VT_MOMENT_STACKS];
	uint32_t top[VT_MOMENT_STACKS];
	uint32_t count = vt_top_indices(held, live, live->count, VT_MOMENT_STACKS, scratch, top);
	uint64_t listed = 0;
	*out = (struct vt_moment){.kept = true, .count = count};
	for (uint32_t i = 0; i < count; i++) {
		uint32_t id = live->ids[top[i]];
		out->stacks[i] = (struct vt_stack_bytes){id, live->bytes[id]};
		listed += live->bytes[id];
	}
	out->other = max - listed;
}

static uint32_t largest_stack(const struct vt_history_record *records, uint64_t count)
{
	uint32_t largest = 0;
	for (uint64_t i = 0; i < count; i++)
		largest = records[i].stack > largest ? records[i].stack : largest;
	return largest;
}

/* Pass two: every stack's bytes as the records are applied, a moment
 * taken at each row's highest. */
static bool replay(const struct vt_history_record *records, const struct vt_timeline *timeline,
		   const uint64_t *high, uint64_t last, struct vt_moment *moments)
{
	uint32_t ids = largest_stack(records, last) + 1;
	struct live_stacks live = {calloc(ids, sizeof(uint64_t)), calloc(ids, sizeof(uint32_t)),
				   calloc(ids, sizeof(uint32_t)), 0};
	bool ok = live.bytes && live.position && live.ids;
	uint64_t applied = 0;
	for (uint32_t i = 0; ok && i < timeline->count; i++) {
		if (high[i] == UINT64_MAX)
			continue;
		if (i && high[i] == high[i - 1] && moments[i - 1].kept) {
			moments[i] = moments[i - 1];
			continue;
		}
		while (applied < high[i])
			apply(&live, &records[applied++]);
		take(&live, timeline->rows[i].max, &moments[i]);
	}
	free(live.bytes);
	free(live.position);
	free(live.ids);
	return ok;
}

struct vt_moment *vt_moments_replay(const struct vt_history *history,
				    const struct vt_timeline *timeline)
{
	if (!history->records || !timeline->count)
		return NULL;
	uint64_t kept = history->changes < history->bound ? history->changes : history->bound;
	uint64_t *high = malloc(timeline->count * sizeof(*high));
	struct vt_moment *moments = calloc(timeline->count, sizeof(*moments));
	bool ok = high && moments;
	if (ok) {
		find_highs(history->records, kept, timeline, history->changes, high);
		uint64_t last = 0;
		for (uint32_t i = 0; i < timeline->count; i++)
			last = high[i] != UINT64_MAX && high[i] > last ? high[i] : last;
		ok = replay(history->records, timeline, high, last, moments);
	}
	free(high);
	if (!ok) {
		free(moments);
		return NULL;
	}
	return moments;
}

bool vt_sets_replay(const struct vt_history *history, const uint32_t *set_of, uint32_t stack_count,
		    uint32_t set_count, uint64_t *peaks)
{
	if (!history->records || history->changes > history->bound)
		return false;
	uint64_t *live = calloc(set_count ? set_count : 1, sizeof(*live));
	if (!live)
		return false;
	memset(peaks, 0, set_count * sizeof(*peaks));
	for (uint64_t i = 0; i < history->changes; i++) {
		const struct vt_history_record *record = &history->records[i];
		uint32_t set = record->stack < stack_count ? set_of[record->stack] : 0;
		if (!set)
			continue;
		live[set - 1] += record->bytes; /* modulo 2^64, as recorded */
		if (live[set - 1] > peaks[set - 1])
			peaks[set - 1] = live[set - 1];
	}
	free(live);
	return true;
}
