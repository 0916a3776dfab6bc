#include <criterion/criterion.h>

#include "tags.h"
#include "timeline.h"

/* A device as the tracker drives a timeline: two tags, a clock. */
struct device {
	struct vt_timeline timeline;
	struct vt_counter tags[2];
	uint64_t live;
	uint64_t now; /* both clocks: the tests step it by hand */
};

static uint64_t exact_now(void *context)
{
	return ((struct device *)context)->now;
}

/* One event: bytes added to (or, negative, taken from) tag. */
static void event(struct device *d, uint32_t tag, int64_t bytes)
{
	vt_timeline_advance(&d->timeline, d->now, exact_now, d, d->live, d->tags, 2, 0);
	vt_timeline_tag_changing(&d->timeline, tag, d->tags[tag].live);
	d->tags[tag].live += (uint64_t)bytes;
	d->live += (uint64_t)bytes;
	vt_timeline_after(&d->timeline, d->live);
}

/* A row's bytes for tag; 0 when the row does not list it. */
static uint64_t row_tag(const struct vt_timeline_row *row, uint32_t tag)
{
	for (uint32_t i = 0; i < row->tag_count; i++)
		if (row->tags[i].tag == tag)
			return row->tags[i].bytes;
	return 0;
}

Test(timeline, a_sawtooth_keeps_its_troughs_and_peaks)
{
	struct device d = {0};
	event(&d, 0, 256); /* the base, held */
	for (int tooth = 0; tooth < 300; tooth++) {
		d.now += 10; /* all within the first interval */
		event(&d, 1, 1024);
		event(&d, 1, -1024);
	}
	cr_assert_eq(d.timeline.count, 1);
	const struct vt_timeline_row *row = &d.timeline.rows[0];
	cr_assert_eq(row->min, 0, "the level it opened at");
	cr_assert_eq(row->max, 1280);
	cr_assert_eq(row->end, 256, "live at its close");
	d.now = VT_TIMELINE_START_NS;
	event(&d, 1, 1024);
	event(&d, 1, -1024);
	cr_assert_eq(d.timeline.count, 2);
	cr_assert_eq(d.timeline.rows[1].min, 256, "the trough after the first tooth");
	cr_assert_eq(d.timeline.rows[1].max, 1280);
	cr_assert_eq(d.timeline.rows[1].end, 256);
	cr_assert_eq(d.timeline.rows[1].t_ns, VT_TIMELINE_START_NS);
	vt_timeline_free(&d.timeline);
}

Test(timeline, the_split_by_tag_is_taken_at_the_rows_max)
{
	struct device d = {0};
	event(&d, 0, 100);
	event(&d, 1, 900); /* the max: 100 + 900 */
	event(&d, 1, -900);
	event(&d, 0, 50); /* 150 now, below the max */
	d.now = VT_TIMELINE_START_NS;
	event(&d, 0, 1); /* closes the first row */
	const struct vt_timeline_row *row = &d.timeline.rows[0];
	cr_assert_eq(row->max, 1000);
	cr_assert_eq(row->tag_count, 2);
	cr_assert_eq(row->tags[0].tag, 1, "largest first");
	cr_assert_eq(row_tag(row, 0), 100, "tag 0 at the max, not at the close");
	cr_assert_eq(row_tag(row, 1), 900);
	/* The open row's split, as a snapshot sees it. */
	struct vt_timeline copy = vt_timeline_copy(&d.timeline, d.tags, 2);
	cr_assert_eq(copy.count, 2);
	cr_assert_eq(copy.rows[1].min, 150);
	cr_assert_eq(copy.rows[1].max, 151);
	cr_assert_eq(copy.rows[1].tag_count, 1, "tags at 0 are not listed");
	cr_assert_eq(row_tag(&copy.rows[1], 0), 151);
	cr_assert_eq(row_tag(&copy.rows[0], 1), 900);
	vt_timeline_free(&copy);
	vt_timeline_free(&d.timeline);
}

Test(timeline, bounded_with_no_peak_or_trough_lost)
{
	struct device d = {0};
	event(&d, 0, 5000);
	for (uint64_t i = 0; i < 10 * VT_TIMELINE_ROWS; i++) {
		d.now += VT_TIMELINE_START_NS;
		int64_t step = i == 7777 ? 1000000 : i == 3333 ? -4000 : 0;
		event(&d, 0, step);
		event(&d, 0, -step);
	}
	cr_assert_leq(d.timeline.count, VT_TIMELINE_ROWS);
	cr_assert_eq(d.timeline.interval_ns, 16ull * VT_TIMELINE_START_NS);
	uint64_t highest = 0, lowest = UINT64_MAX;
	for (uint32_t i = 1; i < d.timeline.count; i++) {
		if (d.timeline.rows[i].max > highest)
			highest = d.timeline.rows[i].max;
		if (d.timeline.rows[i].min < lowest)
			lowest = d.timeline.rows[i].min;
	}
	cr_assert_eq(highest, 1005000);
	cr_assert_eq(lowest, 1000);
	cr_assert_eq(d.timeline.rows[d.timeline.count - 1].end, 5000);
	vt_timeline_free(&d.timeline);
}

/* 100 tags live at a row's max: the 31 largest by name, the other 69
 * together under "other tags", to the byte. */
Test(timeline, a_rows_split_keeps_the_largest_tags_and_groups_the_rest)
{
	struct vt_timeline timeline = {0};
	struct vt_counter tags[100] = {0};
	uint64_t live = 0, now = 0;
	struct device clock = {0};
	vt_timeline_advance(&timeline, now, exact_now, &clock, live, tags, 100, 0);
	for (uint32_t t = 0; t < 100; t++) {
		vt_timeline_tag_changing(&timeline, t, tags[t].live);
		tags[t].live = t + 1;
		live += t + 1;
		vt_timeline_after(&timeline, live);
	}
	struct vt_timeline copy = vt_timeline_copy(&timeline, tags, 100);
	const struct vt_timeline_row *row = &copy.rows[0];
	cr_assert_eq(row->max, 5050);
	cr_assert_eq(row->tag_count, VT_TIMELINE_ROW_TAGS);
	cr_assert_eq(row->tags[0].tag, 99, "largest first");
	cr_assert_eq(row->tags[0].bytes, 100);
	cr_assert_eq(row->tags[30].tag, 69);
	cr_assert_eq(row->tags[31].tag, VT_TAG_OTHER);
	cr_assert_eq(row->tags[31].bytes, 69 * 70 / 2, "tags 0 to 68: 1 + ... + 69 bytes");
	uint64_t sum = 0;
	for (uint32_t i = 0; i < row->tag_count; i++)
		sum += row->tags[i].bytes;
	cr_assert_eq(sum, row->max);
	vt_timeline_free(&copy);
	vt_timeline_free(&timeline);
}
