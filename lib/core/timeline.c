#include "timeline.h"
#include "memory.h"

#include <stdlib.h>
#include <string.h>

#include "tags.h"
#include "top.h"

struct split_source {
	const struct vt_timeline *timeline;
	const struct vt_counter *tags;
};

static uint64_t tag_at_max(uint32_t index, const void *context)
{
	const struct split_source *source = context;
	return vt_marks_value(&source->timeline->tags, index, source->tags[index].live);
}

/* The open row's split at its max, in a new array of *count entries: the
 * largest tags, the others' bytes under VT_TAG_OTHER. NULL when no tag
 * holds bytes or no memory is left. */
static struct vt_timeline_tag *split_at_max(const struct vt_timeline *timeline,
					    const struct vt_counter *tags, uint32_t tag_count,
					    uint32_t *count)
{
	struct split_source source = {timeline, tags};
	struct vt_top_entry scratch[VT_TIMELINE_ROW_TAGS];
	uint32_t top[VT_TIMELINE_ROW_TAGS];
	*count = 0;
	uint64_t total = 0;
	for (uint32_t t = 0; t < tag_count; t++)
		total = vt_add_bytes(total, tag_at_max(t, &source));
	if (!total)
		return NULL;
	struct vt_timeline_tag *split = vt_mem_alloc(VT_TIMELINE_ROW_TAGS * sizeof(*split));
	if (!split)
		return NULL;
	uint32_t kept = vt_top_indices(tag_at_max, &source, tag_count, VT_TIMELINE_ROW_TAGS - 1,
				       scratch, top);
	uint64_t rest = total;
	bool other_kept = false;
	for (uint32_t i = 0; i < kept; i++) {
		split[i] = (struct vt_timeline_tag){top[i], tag_at_max(top[i], &source)};
		rest = vt_sub_bytes(rest, split[i].bytes);
		other_kept |= top[i] == VT_TAG_OTHER;
	}
	if (rest && other_kept) {
		for (uint32_t i = 0; i < kept; i++)
			split[i].bytes += split[i].tag == VT_TAG_OTHER ? rest : 0;
	} else if (rest) {
		split[kept++] = (struct vt_timeline_tag){VT_TAG_OTHER, rest};
	}
	*count = kept;
	return split;
}

/* Merges neighbouring rows: each pair keeps its first row's time, the lower
 * low, the higher high with its split, and the second row's close. */
static void halve(struct vt_timeline *timeline)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < timeline->count; i += 2) {
		struct vt_timeline_row row = timeline->rows[i];
		if (i + 1 < timeline->count) {
			struct vt_timeline_row *next = &timeline->rows[i + 1];
			if (next->min < row.min)
				row.min = next->min;
			if (next->max > row.max) {
				row.max = next->max;
				vt_mem_free(row.tags);
				row.tags = next->tags;
				row.tag_count = next->tag_count;
			} else {
				vt_mem_free(next->tags);
			}
			row.end = next->end;
		}
		timeline->rows[kept++] = row;
	}
	timeline->count = kept;
	timeline->interval_ns *= 2;
}

static void close_open_row(struct vt_timeline *timeline, const struct vt_counter *tags,
			   uint32_t tag_count)
{
	struct vt_timeline_row *row = &timeline->rows[timeline->count - 1];
	row->tags = split_at_max(timeline, tags, tag_count, &row->tag_count);
}

void vt_timeline_advance(struct vt_timeline *timeline, uint64_t now_ns, uint64_t (*open_ns)(void *),
			 void *context, uint64_t live, const struct vt_counter *tags,
			 uint32_t tag_count, uint64_t history_at)
{
	if (vt_timeline_row_runs(timeline, now_ns))
		return;
	if (!timeline->rows) {
		timeline->rows = vt_mem_calloc(VT_TIMELINE_ROWS, sizeof(*timeline->rows));
		timeline->interval_ns = VT_TIMELINE_START_NS;
		timeline->exact_until_ns = now_ns + VT_TIMELINE_EXACT_NS;
		if (!timeline->rows)
			return;
	}
	if (timeline->count) {
		close_open_row(timeline, tags, tag_count);
		if (timeline->count == VT_TIMELINE_ROWS)
			halve(timeline);
	}
	timeline->opened_ns = now_ns;
	vt_marks_high(&timeline->tags); /* the level it opens at is its first high */
	timeline->rows[timeline->count++] = (struct vt_timeline_row){.t_ns = open_ns(context),
								     .min = live,
								     .max = live,
								     .end = live,
								     .history_at = history_at};
}

void vt_timeline_tag_changing(struct vt_timeline *timeline, uint32_t tag, uint64_t live)
{
	vt_marks_changing(&timeline->tags, tag, live);
}

void vt_timeline_after(struct vt_timeline *timeline, uint64_t live)
{
	if (!timeline->count)
		return;
	struct vt_timeline_row *row = &timeline->rows[timeline->count - 1];
	row->end = live;
	if (live < row->min)
		row->min = live;
	if (live > row->max) {
		row->max = live;
		vt_marks_high(&timeline->tags); /* every tag's bytes now are its bytes at the max */
	}
}

struct vt_timeline vt_timeline_copy(const struct vt_timeline *timeline,
				    const struct vt_counter *tags, uint32_t tag_count)
{
	struct vt_timeline copy = {.interval_ns = timeline->interval_ns};
	if (!timeline->count)
		return copy;
	copy.rows = calloc(VT_TIMELINE_ROWS, sizeof(*copy.rows));
	if (!copy.rows)
		return copy;
	for (uint32_t i = 0; i < timeline->count; i++) {
		const struct vt_timeline_row *row = &timeline->rows[i];
		copy.rows[i] = *row;
		bool open = i + 1 == timeline->count;
		copy.rows[i].tags =
			open ? split_at_max(timeline, tags, tag_count, &copy.rows[i].tag_count)
			     : NULL;
		if (!open && row->tag_count) {
			copy.rows[i].tags = malloc(row->tag_count * sizeof(*row->tags));
			if (copy.rows[i].tags)
				memcpy(copy.rows[i].tags, row->tags,
				       row->tag_count * sizeof(*row->tags));
		}
		if (!copy.rows[i].tags)
			copy.rows[i].tag_count = 0;
	}
	copy.count = timeline->count;
	return copy;
}

void vt_timeline_free(struct vt_timeline *timeline)
{
	for (uint32_t i = 0; i < timeline->count; i++)
		free(timeline->rows[i].tags);
	free(timeline->rows);
	vt_marks_free(&timeline->tags);
	memset(timeline, 0, sizeof(*timeline));
}
