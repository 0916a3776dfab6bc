#include "timeline.h"

#include <stdlib.h>
#include <string.h>

static uint64_t *copy_tags(const struct vt_counter *tags, uint32_t count)
{
	uint64_t *copy = count ? malloc(count * sizeof(*copy)) : NULL;
	for (uint32_t i = 0; copy && i < count; i++)
		copy[i] = tags[i].live;
	return copy;
}

/* Merges neighbouring rows: each pair keeps its first row's time and tags
 * and the higher of the two live values. */
static void halve(struct vt_timeline *timeline)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < timeline->count; i += 2) {
		struct vt_timeline_row row = timeline->rows[i];
		if (i + 1 < timeline->count) {
			struct vt_timeline_row *next = &timeline->rows[i + 1];
			if (next->live > row.live)
				row.live = next->live;
			free(next->tags);
		}
		timeline->rows[kept++] = row;
	}
	timeline->count = kept;
	timeline->interval_ns *= 2;
}

bool vt_timeline_due(struct vt_timeline *timeline, uint64_t live)
{
	if (!timeline->count || timeline->countdown == 0)
		return true;
	timeline->countdown--;
	struct vt_timeline_row *last = &timeline->rows[timeline->count - 1];
	if (live > last->live)
		last->live = live;
	return false;
}

void vt_timeline_note(struct vt_timeline *timeline, uint64_t t_ns, uint64_t live,
		      const struct vt_counter *tags, uint32_t tag_count)
{
	if (!timeline->rows) {
		timeline->rows = calloc(VT_TIMELINE_ROWS, sizeof(*timeline->rows));
		timeline->interval_ns = VT_TIMELINE_START_NS;
		if (!timeline->rows)
			return;
	}
	timeline->countdown = VT_TIMELINE_STRIDE - 1;
	struct vt_timeline_row *last =
		timeline->count ? &timeline->rows[timeline->count - 1] : NULL;
	if (last && t_ns - last->t_ns < timeline->interval_ns) {
		if (live > last->live)
			last->live = live;
		return;
	}
	if (timeline->count == VT_TIMELINE_ROWS)
		halve(timeline);
	uint64_t *copy = copy_tags(tags, tag_count);
	timeline->rows[timeline->count++] = (struct vt_timeline_row){
		.t_ns = t_ns,
		.live = live,
		.tag_count = copy ? tag_count : 0,
		.tags = copy,
	};
}

struct vt_timeline vt_timeline_copy(const struct vt_timeline *timeline)
{
	struct vt_timeline copy = {.interval_ns = timeline->interval_ns};
	if (!timeline->count)
		return copy;
	copy.rows = calloc(VT_TIMELINE_ROWS, sizeof(*copy.rows));
	if (!copy.rows)
		return copy;
	for (uint32_t i = 0; i < timeline->count; i++) {
		copy.rows[i] = timeline->rows[i];
		copy.rows[i].tags = NULL;
		if (timeline->rows[i].tag_count) {
			size_t bytes = timeline->rows[i].tag_count * sizeof(uint64_t);
			copy.rows[i].tags = malloc(bytes);
			if (copy.rows[i].tags)
				memcpy(copy.rows[i].tags, timeline->rows[i].tags, bytes);
			else
				copy.rows[i].tag_count = 0;
		}
	}
	copy.count = timeline->count;
	return copy;
}

void vt_timeline_free(struct vt_timeline *timeline)
{
	for (uint32_t i = 0; i < timeline->count; i++)
		free(timeline->rows[i].tags);
	free(timeline->rows);
	memset(timeline, 0, sizeof(*timeline));
}
