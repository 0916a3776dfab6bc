#include <criterion/criterion.h>

#include "timeline.h"

Test(timeline, one_row_per_interval_keeping_the_highest)
{
	struct vt_timeline timeline = {0};
	struct vt_counter tags[2] = {{.live = 5}, {.live = 7}};
	vt_timeline_note(&timeline, 0, 100, tags, 2);
	vt_timeline_note(&timeline, 10, 900, tags, 2); /* same interval: its max */
	vt_timeline_note(&timeline, 20, 50, tags, 2);
	vt_timeline_note(&timeline, VT_TIMELINE_START_NS, 60, tags, 1);
	cr_assert_eq(timeline.count, 2);
	cr_assert_eq(timeline.rows[0].live, 900);
	cr_assert_eq(timeline.rows[0].tag_count, 2);
	cr_assert_eq(timeline.rows[0].tags[1], 7);
	cr_assert_eq(timeline.rows[1].t_ns, VT_TIMELINE_START_NS);
	cr_assert_eq(timeline.rows[1].live, 60);
	vt_timeline_free(&timeline);
}

Test(timeline, bounded_and_no_peak_is_lost)
{
	struct vt_timeline timeline = {0};
	uint64_t t = 0;
	for (uint64_t i = 0; i < 10 * VT_TIMELINE_ROWS; i++) {
		vt_timeline_note(&timeline, t, i == 7777 ? 1000000 : i, NULL, 0);
		t += VT_TIMELINE_START_NS;
	}
	cr_assert_leq(timeline.count, VT_TIMELINE_ROWS);
	cr_assert_eq(timeline.interval_ns, 16 * VT_TIMELINE_START_NS);
	uint64_t highest = 0;
	for (uint32_t i = 0; i < timeline.count; i++)
		if (timeline.rows[i].live > highest)
			highest = timeline.rows[i].live;
	cr_assert_eq(highest, 1000000);
	struct vt_timeline copy = vt_timeline_copy(&timeline);
	cr_assert_eq(copy.count, timeline.count);
	vt_timeline_free(&copy);
	vt_timeline_free(&timeline);
}
