#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#include "stacks.h"
#include "tracker.h"

#define GiB (1ull << 30)

enum { TAG_A = 1, TAG_B = 2, TAG_C = 3 };

static struct vt_tracker tracker;
static uint64_t now;

static uint64_t fake_clock(void)
{
	return now;
}

static void setup(void)
{
	now = 1000;
	struct vt_tracker_options options = {
		.oom_snapshots = 1, .snapshot_top = 4, .clock = fake_clock};
	vt_tracker_init(&tracker, &options);
}

static struct vt_snapshot taken;

static void teardown(void)
{
	vt_snapshot_free(&taken);
	memset(&taken, 0, sizeof(taken));
	vt_tracker_destroy(&tracker);
}

TestSuite(tracker, .init = setup, .fini = teardown);

static void alloc_tagged(int device, enum vt_kind kind, uint64_t address, uint64_t bytes,
			 uint32_t tag, uint32_t stack)
{
	struct vt_event event = {VT_OP_ALLOC, kind,  device,   address, bytes,
				 0,           "api", "driver", tag,     stack};
	now += 10;
	cr_assert_eq(vt_tracker_record(&tracker, &event) & VT_RECORDED_UNKEPT, 0);
}

static void alloc(int device, enum vt_kind kind, uint64_t address, uint64_t bytes)
{
	alloc_tagged(device, kind, address, bytes, 0, 0);
}

static void release(uint64_t address, enum vt_kind family)
{
	struct vt_event event = {VT_OP_FREE, family, VT_HOST_DEVICE, address, 0, 0, "free", "free"};
	now += 10;
	vt_tracker_record(&tracker, &event);
}

static void fail(int device, uint64_t bytes, int error, uint32_t tag)
{
	struct vt_event event = {VT_OP_ALLOC_FAILED, VT_KIND_DEVICE,  device, 0, bytes, error,
				 "cudaMalloc",       "cuMemAlloc_v2", tag,    5};
	now += 10;
	vt_tracker_record(&tracker, &event);
}

static const struct vt_snapshot *snapshot(void)
{
	vt_snapshot_free(&taken);
	vt_tracker_snapshot(&tracker, &taken);
	return &taken;
}

static uint64_t tag_at_peak(const struct vt_device_stats *d, uint32_t tag)
{
	return vt_stats_at_peak(d, &d->tags.items[tag]);
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

/* The example from the design: A reaches 6 GiB while B holds 2; A frees 5,
 * then B grows to 5. The peak stays 8, with A 6 and B 2 at it, while B's
 * own peak is 5. */
Test(tracker, tags_at_the_peak_and_their_own_peaks)
{
	alloc_tagged(0, VT_KIND_DEVICE, 0x10, 2 * GiB, TAG_B, 0);
	alloc_tagged(0, VT_KIND_DEVICE, 0x20, 1 * GiB, TAG_A, 0);
	alloc_tagged(0, VT_KIND_DEVICE, 0x30, 5 * GiB, TAG_A, 0);
	release(0x30, VT_KIND_DEVICE);
	alloc_tagged(0, VT_KIND_DEVICE, 0x40, 3 * GiB, TAG_B, 0);
	const struct vt_device_stats *d = &snapshot()->devices[0];
	cr_assert_eq(d->peak, 8 * GiB);
	cr_assert_eq(tag_at_peak(d, TAG_A), 6 * GiB);
	cr_assert_eq(tag_at_peak(d, TAG_B), 2 * GiB);
	cr_assert_eq(d->tags.items[TAG_A].peak, 6 * GiB);
	cr_assert_eq(d->tags.items[TAG_B].peak, 5 * GiB);
	cr_assert_eq(d->tags.items[TAG_B].live, 5 * GiB);
	cr_assert_eq(d->tags.items[TAG_A].live, 1 * GiB);
}

/* A later, higher peak replaces what was at the earlier one. */
Test(tracker, a_new_peak_moves_the_at_peak_numbers)
{
	alloc_tagged(0, VT_KIND_DEVICE, 0x10, 4 * GiB, TAG_A, 11);
	release(0x10, VT_KIND_DEVICE);
	alloc_tagged(0, VT_KIND_DEVICE, 0x20, 3 * GiB, TAG_B, 12);
	alloc_tagged(0, VT_KIND_DEVICE, 0x30, 2 * GiB, TAG_C, 13); /* new peak 5 */
	const struct vt_device_stats *d = &snapshot()->devices[0];
	cr_assert_eq(d->peak, 5 * GiB);
	cr_assert_eq(tag_at_peak(d, TAG_A), 0);
	cr_assert_eq(tag_at_peak(d, TAG_B), 3 * GiB);
	cr_assert_eq(tag_at_peak(d, TAG_C), 2 * GiB);
	cr_assert_eq(vt_stats_at_peak(d, &d->stacks.items[11]), 0);
	cr_assert_eq(vt_stats_at_peak(d, &d->stacks.items[12]), 3 * GiB);
	cr_assert_eq(d->stacks.items[11].peak, 4 * GiB);
	cr_assert_eq(d->stacks.items[12].tag, TAG_B);
}

Test(tracker, kinds_at_the_device_peak)
{
	alloc(0, VT_KIND_DEVICE, 0x10, 6 * GiB);
	alloc(0, VT_KIND_ASYNC, 0x20, 2 * GiB); /* peak: device 6, async 2 */
	release(0x10, VT_KIND_DEVICE);
	alloc(0, VT_KIND_ASYNC, 0x30, 3 * GiB); /* async's own peak 5 */
	const struct vt_device_stats *d = &snapshot()->devices[0];
	cr_assert_eq(d->peak, 8 * GiB);
	cr_assert_eq(vt_stats_at_peak(d, &d->kinds[VT_KIND_DEVICE]), 6 * GiB);
	cr_assert_eq(vt_stats_at_peak(d, &d->kinds[VT_KIND_ASYNC]), 2 * GiB);
	cr_assert_eq(d->kinds[VT_KIND_ASYNC].peak, 5 * GiB);
	cr_assert_eq(d->kinds[VT_KIND_DEVICE].live, 0);
}

Test(tracker, retag_moves_live_bytes)
{
	alloc_tagged(0, VT_KIND_DEVICE, 0x10, GiB, TAG_A, 0);
	cr_assert(vt_tracker_retag(&tracker, 0x10, TAG_B));
	cr_assert_not(vt_tracker_retag(&tracker, 0x99, TAG_B));
	alloc_tagged(0, VT_KIND_DEVICE, 0x20, GiB, TAG_C, 0); /* peak 2 GiB */
	const struct vt_device_stats *d = &snapshot()->devices[0];
	cr_assert_eq(d->tags.items[TAG_A].live, 0);
	cr_assert_eq(d->tags.items[TAG_B].live, GiB);
	cr_assert_eq(tag_at_peak(d, TAG_B), GiB);
	release(0x10, VT_KIND_DEVICE);
	cr_assert_eq(snapshot()->devices[0].tags.items[TAG_B].live, 0, "freed from its new tag");
}

/* A stack is its frames with a tag: a retag moves the bytes to the same
 * frames with the new tag, so the stacks' tags agree with the tags'. */
Test(tracker, retag_moves_bytes_to_the_stack_with_the_new_tag)
{
	uintptr_t frames[] = {0x91000, 0x92000};
	uint32_t under_a = vt_stack_intern(frames, 2, TAG_A);
	alloc_tagged(0, VT_KIND_DEVICE, 0x10, GiB, TAG_A, under_a);
	alloc_tagged(0, VT_KIND_DEVICE, 0x20, 3 * GiB, TAG_A, under_a);
	cr_assert(vt_tracker_retag(&tracker, 0x10, TAG_B));
	uint32_t under_b = vt_stack_intern(frames, 2, TAG_B);
	cr_assert_neq(under_b, under_a);
	const struct vt_device_stats *d = &snapshot()->devices[0];
	cr_assert_eq(d->stacks.items[under_a].live, 3 * GiB);
	cr_assert_eq(d->stacks.items[under_a].tag, TAG_A);
	cr_assert_eq(d->stacks.items[under_a].allocs, 2, "allocations stay where they were made");
	cr_assert_eq(d->stacks.items[under_b].live, GiB);
	cr_assert_eq(d->stacks.items[under_b].tag, TAG_B);
	cr_assert_eq(d->stacks.items[under_b].allocs, 0);
	cr_assert_eq(d->tags.items[TAG_B].live, GiB);
	release(0x10, VT_KIND_DEVICE);
	d = &snapshot()->devices[0];
	cr_assert_eq(d->stacks.items[under_b].live, 0, "freed from its new stack");
	cr_assert_eq(d->stacks.items[under_a].live, 3 * GiB);
}

Test(tracker, retag_of_memory_only_shown_moves_no_bytes)
{
	alloc_tagged(0, VT_KIND_DEVICE, 0x10, GiB, TAG_A, 0);
	alloc_tagged(0, VT_KIND_IPC_IMPORT, 0x20, 2 * GiB, TAG_A, 0);
	cr_assert(vt_tracker_retag(&tracker, 0x20, TAG_B));
	const struct vt_device_stats *d = &snapshot()->devices[0];
	cr_assert_eq(d->tags.items[TAG_A].live, GiB);
	cr_assert_eq(d->tags.items[TAG_B].live, 0);
	cr_assert_eq(d->tags.items[TAG_B].peak, 0);
	struct vt_event close = {VT_OP_FREE, VT_KIND_IPC_IMPORT,      VT_HOST_DEVICE,       0x20, 0,
				 0,          "cudaIpcCloseMemHandle", "cuIpcCloseMemHandle"};
	vt_tracker_record(&tracker, &close);
	d = &snapshot()->devices[0];
	cr_assert_eq(d->tags.items[TAG_A].live, GiB);
	cr_assert_eq(d->kinds[VT_KIND_IPC_IMPORT].live, 0);
}

static void level(int device, uint64_t bytes, uint32_t tag, uint32_t stack)
{
	struct vt_event event = {VT_OP_LEVEL,
				 VT_KIND_GRAPH,
				 device,
				 VT_GRAPH_LEVEL_ADDRESS(device),
				 bytes,
				 0,
				 "cudaGraphLaunch",
				 "cuGraphLaunch",
				 tag,
				 stack};
	now += 10;
	cr_assert_eq(vt_tracker_record(&tracker, &event) & VT_RECORDED_UNKEPT, 0);
}

Test(tracker, a_level_on_the_same_stack_is_one_allocation)
{
	level(0, GiB, TAG_A, 7);
	level(0, 3 * GiB, TAG_A, 7);
	level(0, 2 * GiB, TAG_B, 7);
	const struct vt_device_stats *d = &snapshot()->devices[0];
	const struct vt_counter *stack = &d->stacks.items[7];
	cr_assert_eq(stack->live, 2 * GiB);
	cr_assert_eq(stack->peak, 3 * GiB);
	cr_assert_eq(stack->allocs, 1, "growing and shrinking begin no new allocation");
	cr_assert_eq(stack->frees, 0);
	cr_assert_eq(stack->bytes_allocated, 3 * GiB);
	cr_assert_eq(stack->tag, TAG_B, "the tag of its latest change");
	cr_assert_eq(d->tags.items[TAG_A].frees, 1, "a changed tag ends on the old one");
	cr_assert_eq(d->tags.items[TAG_B].allocs, 1);
	level(0, 0, TAG_B, 8);
	stack = &snapshot()->devices[0].stacks.items[7];
	cr_assert_eq(stack->live, 0);
	cr_assert_eq(stack->frees, 1);
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
	alloc_tagged(0, VT_KIND_DEVICE, 0x10, GiB, TAG_A, 21);
	alloc_tagged(0, VT_KIND_DEVICE, 0x20, 3 * GiB, TAG_B, 22);
	fail(0, 100 * GiB, 2, TAG_C);
	const struct vt_snapshot *s = snapshot();
	cr_assert_eq(s->devices[0].live, 4 * GiB);
	cr_assert_eq(s->devices[0].failures, 1);
	cr_assert_eq(s->failure_count, 1);
	const struct vt_failure *f = &s->failures[0];
	cr_assert_eq(f->bytes, 100 * GiB);
	cr_assert_eq(f->error, 2);
	cr_assert_eq(f->live_bytes, 4 * GiB);
	cr_assert_eq(f->at_ns, 30);
	cr_assert_eq(f->tag, TAG_C);
	cr_assert_eq(f->stack, 5);
	cr_assert_str_eq(f->api, "cudaMalloc");
	cr_assert_not_null(f->snapshot);
	cr_assert_eq(f->snapshot->tag_count, 2);
	cr_assert_eq(f->snapshot->tags[0].tag, TAG_B, "largest first");
	cr_assert_eq(f->snapshot->tags[0].bytes, 3 * GiB);
	cr_assert_eq(f->snapshot->tags[1].bytes, GiB);
	cr_assert_eq(f->snapshot->stack_count, 2);
	cr_assert_eq(f->snapshot->stacks[0].stack, 22);
	cr_assert_eq(f->snapshot->stacks[1].stack, 21);
}

Test(tracker, snapshots_only_for_out_of_memory_and_only_the_first)
{
	fail(0, 1, 1, 0); /* invalid value: no snapshot */
	fail(0, 100 * GiB, 2, 0);
	fail(0, 100 * GiB, 2, 0); /* the second OOM: over VRAMTRACE_OOM_SNAPSHOTS */
	const struct vt_snapshot *s = snapshot();
	cr_assert_null(s->failures[0].snapshot);
	cr_assert_not_null(s->failures[1].snapshot);
	cr_assert_null(s->failures[2].snapshot);
}

Test(tracker, failures_beyond_the_cap_are_counted)
{
	for (int i = 0; i < VT_MAX_FAILURES + 5; i++)
		fail(0, 1, 1, 0);
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

/* Only closing an IPC import ends one, and closing ends nothing else:
 * cudaFree of an imported pointer fails, as does cudaIpcCloseMemHandle of
 * one's own memory. */
Test(tracker, imports_end_only_by_closing)
{
	alloc(0, VT_KIND_IPC_IMPORT, 0x10, GiB);
	alloc(0, VT_KIND_DEVICE, 0x20, 2 * GiB);
	release(0x10, VT_KIND_DEVICE);
	release(0x20, VT_KIND_IPC_IMPORT);
	const struct vt_snapshot *s = snapshot();
	cr_assert_eq(s->counters.unknown_frees, 2);
	cr_assert_eq(s->devices[0].kinds[VT_KIND_IPC_IMPORT].live, GiB);
	cr_assert_eq(s->devices[0].live, 2 * GiB);
	release(0x10, VT_KIND_IPC_IMPORT);
	release(0x20, VT_KIND_DEVICE);
	s = snapshot();
	cr_assert_eq(s->devices[0].kinds[VT_KIND_IPC_IMPORT].live, 0);
	cr_assert_eq(s->devices[0].live, 0);
	cr_assert_eq(s->counters.unknown_frees, 2);
}

/* A free names no device: it is found on whichever device holds it, the
 * device this thread freed on last tried first. */
Test(tracker, frees_find_any_device_in_any_order)
{
	alloc(3, VT_KIND_DEVICE, 0x10, GiB);
	alloc(1, VT_KIND_DEVICE, 0x20, 2 * GiB);
	alloc(5, VT_KIND_MANAGED, 0x30, 4 * GiB);
	alloc(0, VT_KIND_PINNED_HOST, 0x40, 8 * GiB);
	release(0x20, VT_KIND_DEVICE);
	release(0x30, VT_KIND_DEVICE);
	release(0x40, VT_KIND_DEVICE); /* host memory: not a device free */
	release(0x10, VT_KIND_DEVICE);
	const struct vt_snapshot *s = snapshot();
	cr_assert_eq(s->devices[1].live + s->devices[3].live + s->devices[5].live, 0);
	cr_assert_eq(s->devices[1].frees + s->devices[3].frees + s->devices[5].frees, 3);
	cr_assert_eq(s->host.live, 8 * GiB);
	cr_assert_eq(s->counters.unknown_frees, 1);
	cr_assert_eq(s->counters.events, 8);
}

/* A peak's event is numbered among all events, whichever device or the
 * host took them, unknown frees and dropped events included. */
Test(tracker, peak_events_count_every_device)
{
	alloc(0, VT_KIND_DEVICE, 0x10, GiB);              /* 1: device 0's peak */
	alloc(0, VT_KIND_PINNED_HOST, 0x20, GiB);         /* 2: the host's peak */
	release(0x99, VT_KIND_DEVICE);                    /* 3: unknown */
	alloc(VT_MAX_DEVICES, VT_KIND_DEVICE, 0x30, GiB); /* 4: dropped */
	fail(1, GiB, 2, 0);                               /* 5 */
	alloc(1, VT_KIND_DEVICE, 0x40, GiB);              /* 6 */
	release(0x40, VT_KIND_DEVICE);                    /* 7 */
	alloc(1, VT_KIND_DEVICE, 0x50, 2 * GiB);          /* 8: device 1's peak */
	alloc(0, VT_KIND_DEVICE, 0x10, GiB);              /* 9: a duplicate */
	const struct vt_snapshot *s = snapshot();
	cr_assert_eq(s->devices[0].peak_event, 1);
	cr_assert_eq(s->host.peak_event, 2);
	cr_assert_eq(s->devices[1].peak_event, 8);
	cr_assert_eq(s->counters.events, 9);
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
	vt_tracker_record(&tracker, &event);
	event.device = -2;
	vt_tracker_record(&tracker, &event);
	cr_assert_eq(snapshot()->counters.dropped, 2);
}

Test(tracker, reset_forgets_everything)
{
	alloc(0, VT_KIND_DEVICE, 0x10, GiB);
	fail(0, 100 * GiB, 2, 0);
	vt_tracker_reset_unlocked(&tracker);
	const struct vt_snapshot *s = snapshot();
	cr_assert_eq(s->devices[0].peak, 0);
	cr_assert_eq(s->counters.events, 0);
	cr_assert_eq(s->failure_count, 0);
	alloc(0, VT_KIND_DEVICE, 0x10, GiB);
	cr_assert_eq(snapshot()->counters.deduplicated, 0);
}

static void *nested_tags(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	for (uint64_t i = 0; i < 5000; i++) {
		uint64_t address = (id << 32) + i * 16 + 16;
		alloc_tagged((int)(id % 2), VT_KIND_DEVICE, address, 100, (uint32_t)(1 + id % 3),
			     0);
		if (i % 2)
			release(address, VT_KIND_DEVICE);
	}
	return NULL;
}

/* Threads on two devices: totals per device and per tag stay exact. */
Test(tracker, threads_on_two_devices_exact)
{
	pthread_t threads[8];
	for (uintptr_t t = 0; t < 8; t++)
		pthread_create(&threads[t], NULL, nested_tags, (void *)(t + 1));
	for (int t = 0; t < 8; t++)
		pthread_join(threads[t], NULL);
	const struct vt_snapshot *s = snapshot();
	cr_assert_eq(s->devices[0].live, 4 * 2500 * 100);
	cr_assert_eq(s->devices[1].live, 4 * 2500 * 100);
	cr_assert_eq(s->devices[0].allocs + s->devices[1].allocs, 8 * 5000);
	uint64_t tagged = 0;
	for (int d = 0; d < 2; d++)
		for (uint32_t t = 1; t <= 3; t++)
			tagged += s->devices[d].tags.items[t].live;
	cr_assert_eq(tagged, 8 * 2500 * 100);
	cr_assert_eq(s->counters.events, 8 * 7500);
}

static void *no_memory(size_t count, size_t size)
{
	(void)count;
	(void)size;
	return NULL;
}

/* Out of host memory for the ledger, tracing degrades to counting: the
 * allocation still counts, its later free is unknown, nothing crashes. */
Test(tracker, out_of_host_memory_degrades_to_counting)
{
	vt_ledger_set_calloc(no_memory);
	struct vt_event event = {VT_OP_ALLOC, VT_KIND_DEVICE, 0, 0x10, GiB, 0, "a", "a"};
	bool kept = !(vt_tracker_record(&tracker, &event) & VT_RECORDED_UNKEPT);
	vt_ledger_set_calloc(NULL);
	cr_assert_not(kept, "the caller is told, to warn once");
	release(0x10, VT_KIND_DEVICE);
	const struct vt_snapshot *s = snapshot();
	cr_assert_eq(s->devices[0].peak, GiB);
	cr_assert_eq(s->counters.untracked, 1);
	cr_assert_eq(s->counters.unknown_frees, 1);
	alloc(0, VT_KIND_DEVICE, 0x20, GiB);
	cr_assert_eq(snapshot()->counters.untracked, 1, "memory back: tracked again");
}

/* Re-tagging to a tag beyond the counters' array grows it: both counters
 * must still be the live ones afterwards. */
Test(tracker, retag_to_a_new_large_tag)
{
	alloc_tagged(0, VT_KIND_DEVICE, 0x10, GiB, TAG_A, 0);
	cr_assert(vt_tracker_retag(&tracker, 0x10, 4000));
	const struct vt_device_stats *d = &snapshot()->devices[0];
	cr_assert_eq(d->tags.items[TAG_A].live, 0);
	cr_assert_eq(d->tags.items[4000].live, GiB);
}

/* A driver that grants sizes no GPU has (2^63 twice) must not make the
 * totals small: they stop at 2^64 - 1, and frees never take them below 0. */
Test(tracker, sums_saturate_instead_of_wrapping)
{
	const uint64_t half = 1ull << 63;
	alloc_tagged(0, VT_KIND_DEVICE, 0x1000, half, 1, 2);
	alloc_tagged(0, VT_KIND_DEVICE, 0x2000, half + 5, 1, 2);
	const struct vt_device_stats *d = &snapshot()->devices[0];
	cr_assert_eq(d->live, UINT64_MAX);
	cr_assert_eq(d->peak, UINT64_MAX);
	cr_assert_eq(d->bytes_allocated, UINT64_MAX);
	cr_assert_eq(d->kinds[VT_KIND_DEVICE].live, UINT64_MAX);
	cr_assert_eq(d->kinds[VT_KIND_DEVICE].bytes_allocated, UINT64_MAX);
	cr_assert_eq(d->tags.items[1].live, UINT64_MAX);
	cr_assert_eq(d->stacks.items[2].peak, UINT64_MAX);
	release(0x1000, VT_KIND_DEVICE);
	d = &snapshot()->devices[0];
	cr_assert_eq(d->live, UINT64_MAX - half, "a bound once saturated, never wrapped");
	release(0x2000, VT_KIND_DEVICE);
	d = &snapshot()->devices[0];
	cr_assert_eq(d->live, 0);
	cr_assert_eq(d->tags.items[1].live, 0);
	cr_assert_eq(d->live_count, 0);
	cr_assert_eq(d->peak, UINT64_MAX);
}

/* What an event did, told to its caller: a device's new peak (the host's
 * never), and a watermark crossed once until live bytes fall below its
 * lower mark; nothing on the common path. */
Test(tracker, an_event_says_what_it_did)
{
	struct vt_event event = {VT_OP_ALLOC, VT_KIND_DEVICE, 0, 0x1000, GiB, 0, "api", "driver"};
	vt_tracker_set_watermark(&tracker, 0, 3 * GiB, 2 * GiB);
	cr_assert_eq(vt_tracker_record(&tracker, &event), VT_RECORDED_PEAK);
	event.address = 0x2000;
	cr_assert_eq(vt_tracker_record(&tracker, &event), VT_RECORDED_PEAK);
	release(0x2000, VT_KIND_DEVICE);
	event.address = 0x3000;
	cr_assert_eq(vt_tracker_record(&tracker, &event), 0, "back to the peak: no news");
	event.address = 0x4000;
	cr_assert_eq(vt_tracker_record(&tracker, &event), VT_RECORDED_PEAK | VT_RECORDED_WATERMARK);
	struct vt_crossing crossing;
	cr_assert(vt_tracker_crossing(&tracker, 0, &crossing));
	cr_assert_eq(crossing.device, 0);
	cr_assert_eq(crossing.live_bytes, 3 * GiB);
	cr_assert_eq(crossing.watermark, 3 * GiB);
	cr_assert_not(vt_tracker_crossing(&tracker, 1, &crossing));
	event.address = 0x5000;
	cr_assert_eq(vt_tracker_record(&tracker, &event), VT_RECORDED_PEAK, "crossed once");
	release(0x5000, VT_KIND_DEVICE);
	release(0x4000, VT_KIND_DEVICE);
	release(0x3000, VT_KIND_DEVICE); /* 1 GiB: below the lower mark, armed again */
	event.address = 0x6000;
	cr_assert_eq(vt_tracker_record(&tracker, &event), 0);
	event.address = 0x7000;
	cr_assert_eq(vt_tracker_record(&tracker, &event), VT_RECORDED_WATERMARK);
	struct vt_event pinned = {VT_OP_ALLOC, VT_KIND_PINNED_HOST, 0, 0x8000, GiB, 0, "api", "d"};
	cr_assert_eq(vt_tracker_record(&tracker, &pinned), 0, "the host has no peak to tell");
}
