/* The stacks live at each timeline row's highest point, replayed from the
 * device's history, equal what a program held then, to the byte; past the
 * history's bound, rows say they have none rather than show wrong ones. */
#include <criterion/criterion.h>

#include "moments.h"
#include "tracker.h"

static struct vt_tracker tracker;
static uint64_t now;

static uint64_t fake_clock(void)
{
	return now;
}

static void start(uint64_t bound)
{
	now = 1000;
	struct vt_tracker_options options = {
		.oom_snapshots = 0, .snapshot_top = 4, .clock = fake_clock, .history_bound = bound};
	vt_tracker_init(&tracker, &options);
}

static void alloc(uint64_t address, uint64_t bytes, uint32_t stack)
{
	struct vt_event event = {VT_OP_ALLOC, VT_KIND_DEVICE, 0,   address, bytes,
				 0,           "api",          "d", 1,       stack};
	now += 10;
	cr_assert_eq(vt_tracker_record(&tracker, &event) & VT_RECORDED_UNKEPT, 0);
}

static void release(uint64_t address)
{
	struct vt_event event = {VT_OP_FREE, VT_KIND_DEVICE, 0, address, 0, 0, "free", "free"};
	now += 10;
	vt_tracker_record(&tracker, &event);
}

/* Three phases a row apart (rows are 10 us at first): each phase's high is
 * known, and so is what each stack held then. */
static void three_phases(void)
{
	alloc(0x1000, 3000, 7);
	alloc(0x2000, 5001, 8);
	alloc(0x3000, 11, 0); /* no stack */
	release(0x2000);      /* phase 1 high: 7 3000, 8 5001, rest 11 */
	now += 100000;
	alloc(0x4000, 70000, 9);
	alloc(0x5000, 2, 7);
	release(0x4000); /* phase 2 high: 9 70000, 7 3002, rest 11 */
	now += 100000;
	for (uint32_t s = 1; s <= 25; s++)
		alloc(0x10000 + s * 0x100, s * 100, 100 + s);
	/* phase 3 high: stack 7's 3002 and stacks 125 down to 107, the rest
	 * stacks 106 to 101 (2100) and the 11 bytes with no stack. */
}

static const struct vt_moment *moment_at(struct vt_moment *moments, const struct vt_timeline *tl,
					 uint64_t max)
{
	for (uint32_t i = 0; i < tl->count; i++)
		if (tl->rows[i].max == max)
			return &moments[i];
	cr_assert_fail("no row reaches %llu", (unsigned long long)max);
	return NULL;
}

static void expect(const struct vt_moment *m, uint32_t i, uint32_t stack, uint64_t bytes)
{
	cr_assert(i < m->count);
	cr_assert_eq(m->stacks[i].stack, stack, "entry %u: stack %u", i, m->stacks[i].stack);
	cr_assert_eq(m->stacks[i].bytes, bytes, "entry %u: %llu bytes", i,
		     (unsigned long long)m->stacks[i].bytes);
}

Test(moments, each_rows_high_holds_the_stacks_live_then_to_the_byte)
{
	start(1000);
	three_phases();
	struct vt_snapshot snapshot;
	vt_tracker_snapshot(&tracker, &snapshot);
	const struct vt_device_stats *stats = &snapshot.devices[0];
	struct vt_moment *moments = vt_moments_replay(&stats->history, &stats->timeline);
	cr_assert(moments);
	for (uint32_t i = 0; i < stats->timeline.count; i++) {
		cr_assert(moments[i].kept, "row %u", i);
		uint64_t sum = moments[i].other;
		for (uint32_t s = 0; s < moments[i].count; s++)
			sum += moments[i].stacks[s].bytes;
		cr_assert_eq(sum, stats->timeline.rows[i].max, "row %u adds up", i);
	}
	const struct vt_moment *one = moment_at(moments, &stats->timeline, 8012);
	cr_assert_eq(one->count, 2);
	expect(one, 0, 8, 5001);
	expect(one, 1, 7, 3000);
	cr_assert_eq(one->other, 11);
	const struct vt_moment *two = moment_at(moments, &stats->timeline, 73013);
	cr_assert_eq(two->count, 2);
	expect(two, 0, 9, 70000);
	expect(two, 1, 7, 3002);
	cr_assert_eq(two->other, 11);
	uint64_t third = 3013 + 100 * 25 * 26 / 2;
	const struct vt_moment *three = moment_at(moments, &stats->timeline, third);
	cr_assert_eq(three->count, VT_MOMENT_STACKS);
	expect(three, 0, 7, 3002);
	for (uint32_t i = 0; i < 19; i++)
		expect(three, i + 1, 125 - i, (25 - i) * 100ull);
	cr_assert_eq(three->other, 2100 + 11);
	free(moments);
	vt_snapshot_free(&snapshot);
	vt_tracker_destroy(&tracker);
}

Test(moments, past_the_bound_rows_have_none)
{
	start(6); /* phase 1's four changes and two of phase 2's */
	three_phases();
	struct vt_snapshot snapshot;
	vt_tracker_snapshot(&tracker, &snapshot);
	const struct vt_device_stats *stats = &snapshot.devices[0];
	cr_assert_eq(stats->history.changes, 4 + 3 + 25);
	struct vt_moment *moments = vt_moments_replay(&stats->history, &stats->timeline);
	cr_assert(moments);
	const struct vt_moment *one = moment_at(moments, &stats->timeline, 8012);
	cr_assert(one->kept);
	expect(one, 0, 8, 5001);
	const struct vt_moment *two = moment_at(moments, &stats->timeline, 73013);
	cr_assert(two->kept, "its high came at the sixth change");
	expect(two, 0, 9, 70000);
	uint64_t third = 3013 + 100 * 25 * 26 / 2;
	cr_assert(!moment_at(moments, &stats->timeline, third)->kept);
	free(moments);
	vt_snapshot_free(&snapshot);
	vt_tracker_destroy(&tracker);
}

Test(moments, off_without_a_bound)
{
	start(0);
	three_phases();
	struct vt_snapshot snapshot;
	vt_tracker_snapshot(&tracker, &snapshot);
	cr_assert_null(
		vt_moments_replay(&snapshot.devices[0].history, &snapshot.devices[0].timeline));
	vt_snapshot_free(&snapshot);
	vt_tracker_destroy(&tracker);
}

/* Sets of stacks replayed for their own high point: stacks 1 and 2 (one
 * set) peak apart, 100 then 10 + 60, so the set's high is 100, not the 160
 * of their peaks added; stack 3 alone (another set) peaks at 50; stack 4 is
 * in none. Past the bound, no set's high is known. */
Test(moments, a_set_of_stacks_has_its_own_high_point)
{
	start(1000);
	alloc(0x1000, 100, 1);
	release(0x1000);
	alloc(0x2000, 10, 1);
	alloc(0x3000, 60, 2);
	alloc(0x4000, 50, 3);
	alloc(0x5000, 999, 4);
	release(0x4000);
	struct vt_snapshot snapshot;
	vt_tracker_snapshot(&tracker, &snapshot);
	const struct vt_history *history = &snapshot.devices[0].history;
	uint32_t set_of[5] = {0, 1, 1, 2, 0};
	uint64_t peaks[2] = {7, 7};
	cr_assert(vt_sets_replay(history, set_of, 5, 2, peaks));
	cr_assert_eq(peaks[0], 100);
	cr_assert_eq(peaks[1], 50);
	vt_snapshot_free(&snapshot);
	vt_tracker_destroy(&tracker);
	start(3);
	alloc(0x1000, 100, 1);
	alloc(0x2000, 10, 1);
	alloc(0x3000, 60, 2);
	alloc(0x4000, 50, 3);
	vt_tracker_snapshot(&tracker, &snapshot);
	peaks[0] = peaks[1] = 7;
	cr_assert_not(vt_sets_replay(&snapshot.devices[0].history, set_of, 5, 2, peaks));
	cr_assert_eq(peaks[0], 7, "untouched");
	vt_snapshot_free(&snapshot);
	vt_tracker_destroy(&tracker);
}
