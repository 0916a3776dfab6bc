#include <criterion/criterion.h>

#include "tracker.h"

#define GiB (1ull << 30)

static struct vt_tracker tracker;
static uint64_t now;

static void setup(void)
{
	now = 1000;
	vt_tracker_init(&tracker, now);
}

static void teardown(void)
{
	vt_tracker_destroy(&tracker);
}

TestSuite(tracker, .init = setup, .fini = teardown);

static void alloc(int device, enum vt_kind kind, uint64_t address, uint64_t bytes)
{
	struct vt_event event = {VT_OP_ALLOC, kind, device, address, bytes, 0, "api", "driver"};
	now += 10;
	cr_assert(vt_tracker_record(&tracker, &event, now));
}

static void release(uint64_t address, enum vt_kind family)
{
	struct vt_event event = {VT_OP_FREE, family, VT_HOST_DEVICE, address, 0, 0, "free", "free"};
	now += 10;
	vt_tracker_record(&tracker, &event, now);
}

static void fail(int device, uint64_t bytes, int error)
{
	struct vt_event event = {VT_OP_ALLOC_FAILED, VT_KIND_DEVICE, device, 0, bytes, error,
				 "cudaMalloc",       "cuMemAlloc_v2"};
	now += 10;
	vt_tracker_record(&tracker, &event, now);
}

static const struct vt_snapshot *snapshot(void)
{
	static struct vt_snapshot taken;
	vt_tracker_snapshot(&tracker, &taken, now);
	return &taken;
}

Test(tracker, peak_survives_frees_and_records_when)
{
	alloc(0, VT_KIND_DEVICE, 0x10, 6 * GiB);
	alloc(0, VT_KIND_DEVICE, 0x20, 2 * GiB); /* peak 8 GiB, event 2, at 20 ns */
	release(0x10, VT_KIND_DEVICE);
	alloc(0, VT_KIND_DEVICE, 0x30, 5 * GiB); /* 7 GiB: below the peak */
	const struct vt_device_stats *d = &snapshot()->devices[0];
	cr_assert_eq(d->peak, 8 * GiB);
	cr_assert_eq(d->peak_ns, 20);
	cr_assert_eq(d->peak_event, 2);
	cr_assert_eq(d->live, 7 * GiB);
	cr_assert_eq(d->live_count, 2);
	cr_assert_eq(d->allocs, 3);
	cr_assert_eq(d->frees, 1);
	cr_assert_eq(d->bytes_allocated, 13 * GiB);
}

Test(tracker, kinds_at_the_device_peak)
{
	alloc(0, VT_KIND_DEVICE, 0x10, 6 * GiB);
	alloc(0, VT_KIND_ASYNC, 0x20, 2 * GiB); /* peak: device 6, async 2 */
	release(0x10, VT_KIND_DEVICE);
	alloc(0, VT_KIND_ASYNC, 0x30, 3 * GiB); /* async's own peak 5 */
	const struct vt_device_stats *d = &snapshot()->devices[0];
	cr_assert_eq(d->peak, 8 * GiB);
	cr_assert_eq(d->kinds[VT_KIND_DEVICE].at_peak, 6 * GiB);
	cr_assert_eq(d->kinds[VT_KIND_ASYNC].at_peak, 2 * GiB);
	cr_assert_eq(d->kinds[VT_KIND_ASYNC].peak, 5 * GiB);
	cr_assert_eq(d->kinds[VT_KIND_DEVICE].live, 0);
}

Test(tracker, host_kinds_stay_out_of_device_totals)
{
	alloc(0, VT_KIND_DEVICE, 0x10, GiB);
	alloc(0, VT_KIND_PINNED_HOST, 0x20, 3 * GiB);
	const struct vt_snapshot *s = snapshot();
	cr_assert_eq(s->devices[0].peak, GiB);
	cr_assert_eq(s->host.peak, 3 * GiB);
	cr_assert_eq(s->host.kinds[VT_KIND_PINNED_HOST].live, 3 * GiB);
}

Test(tracker, failures_are_recorded_never_live)
{
	alloc(0, VT_KIND_DEVICE, 0x10, GiB);
	fail(0, 100 * GiB, 2);
	const struct vt_snapshot *s = snapshot();
	cr_assert_eq(s->devices[0].live, GiB);
	cr_assert_eq(s->devices[0].failures, 1);
	cr_assert_eq(s->failure_count, 1);
	cr_assert_eq(s->failures[0].bytes, 100 * GiB);
	cr_assert_eq(s->failures[0].error, 2);
	cr_assert_eq(s->failures[0].live_bytes, GiB);
	cr_assert_str_eq(s->failures[0].api, "cudaMalloc");
}

Test(tracker, failures_beyond_the_cap_are_counted)
{
	for (int i = 0; i < VT_MAX_FAILURES + 5; i++)
		fail(0, 1, 2);
	const struct vt_snapshot *s = snapshot();
	cr_assert_eq(s->failure_count, VT_MAX_FAILURES);
	cr_assert_eq(s->counters.failures_total, VT_MAX_FAILURES + 5);
	cr_assert_eq(s->devices[0].failures, VT_MAX_FAILURES + 5);
}

Test(tracker, unknown_and_wrong_family_frees_change_nothing)
{
	alloc(0, VT_KIND_DEVICE, 0x10, GiB);
	release(0x99, VT_KIND_DEVICE);
	release(0x10, VT_KIND_PINNED_HOST); /* cudaFreeHost on device memory fails */
	const struct vt_snapshot *s = snapshot();
	cr_assert_eq(s->counters.unknown_frees, 2);
	cr_assert_eq(s->devices[0].live, GiB);
	release(0x10, VT_KIND_DEVICE);
	cr_assert_eq(snapshot()->devices[0].live, 0);
}

Test(tracker, frees_find_the_device_by_address)
{
	alloc(0, VT_KIND_DEVICE, 0x10, GiB);
	alloc(1, VT_KIND_DEVICE, 0x20, 2 * GiB);
	release(0x10, VT_KIND_DEVICE);
	const struct vt_snapshot *s = snapshot();
	cr_assert_eq(s->devices[0].live, 0);
	cr_assert_eq(s->devices[1].live, 2 * GiB);
	cr_assert(s->devices[1].seen);
	cr_assert_not(s->devices[2].seen);
}

Test(tracker, duplicate_addresses_count_once)
{
	alloc(0, VT_KIND_DEVICE, 0x10, GiB);
	alloc(0, VT_KIND_DEVICE, 0x10, GiB);
	const struct vt_snapshot *s = snapshot();
	cr_assert_eq(s->devices[0].live, GiB);
	cr_assert_eq(s->devices[0].allocs, 1);
	cr_assert_eq(s->counters.deduplicated, 1);
}

Test(tracker, devices_out_of_range_are_dropped)
{
	struct vt_event event = {VT_OP_ALLOC, VT_KIND_DEVICE, VT_MAX_DEVICES, 0x10, 5, 0, "a", "a"};
	vt_tracker_record(&tracker, &event, now);
	event.device = -2;
	vt_tracker_record(&tracker, &event, now);
	cr_assert_eq(snapshot()->counters.dropped, 2);
}

Test(tracker, reset_forgets_everything)
{
	alloc(0, VT_KIND_DEVICE, 0x10, GiB);
	vt_tracker_reset(&tracker, now);
	const struct vt_snapshot *s = snapshot();
	cr_assert_eq(s->devices[0].peak, 0);
	cr_assert_eq(s->counters.events, 0);
	alloc(0, VT_KIND_DEVICE, 0x10, GiB);
	cr_assert_eq(snapshot()->counters.deduplicated, 0);
}
