/* Snapshots of the tracker. A report must agree with itself: its leaks add
 * up to its live bytes and its events to its counts. Each event changes one
 * slot under that slot's lock, so a snapshot holds every slot's lock at
 * once while it copies, and what it copies is one cut of the event stream:
 * each event is in it everywhere or nowhere. The slot locks are taken in
 * ascending order, as vt_tracker_lock_all does, and no event ever holds two
 * of them, so holding them all cannot deadlock. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracker.h"

#define HOST_SLOT VT_MAX_DEVICES
/* How long an emergency snapshot waits for the slots' locks, all of them
 * together: an event holds one for a few dozen instructions, but its thread
 * may be preempted there on a loaded machine; only a holder that will never
 * give it back (the interrupted thread itself, even in the middle of a
 * snapshot of its own) outlasts this, and past it the rest are only tried. */
#define EMERGENCY_WAIT_NS 250000000ull

static struct vt_counter_array copy_array(const struct vt_counter_array *array)
{
	struct vt_counter_array copy = {0};
	if (!array->size)
		return copy;
	copy.items = malloc(array->size * sizeof(*copy.items));
	if (copy.items) {
		memcpy(copy.items, array->items, array->size * sizeof(*copy.items));
		copy.size = array->size;
	}
	return copy;
}

/* Called with every slot held. The counters no slot keeps change outside
 * the slots' locks (an unknown free after its search, a dropped event);
 * each is read once, and the events are summed from those same readings,
 * so the snapshot's events add up to its counts. */
static struct vt_tracer_counters read_counters(struct vt_tracker *tracker)
{
	struct vt_tracer_counters counters = {
		.deduplicated = atomic_load(&tracker->deduplicated),
		.unknown_frees = atomic_load(&tracker->unknown_frees),
		.graph_frees = atomic_load(&tracker->graph_frees),
		.dropped = atomic_load(&tracker->dropped),
		.untracked = atomic_load(&tracker->untracked),
		.failures_total = atomic_load(&tracker->failures_total),
	};
	counters.events = vt_tracker_slot_events(tracker) + counters.unknown_frees +
			  counters.graph_frees + counters.dropped;
	return counters;
}

/* Called with the slot held. */
static void copy_stats(struct vt_device_slot *slot, struct vt_device_stats *out)
{
	*out = slot->stats;
	out->tags = copy_array(&slot->stats.tags);
	out->stacks = copy_array(&slot->stats.stacks);
	out->timeline = vt_timeline_copy(&slot->stats.timeline, slot->stats.tags.items,
					 slot->stats.tags.size);
	out->window = (struct vt_window){0};
}

void vt_tracker_for_each_live(struct vt_tracker *tracker,
			      void (*visit)(const struct vt_allocation *, void *), void *context)
{
	for (int d = 0; d <= VT_MAX_DEVICES; d++) {
		struct vt_device_slot *slot = &tracker->slots[d];
		vt_lock_take(&slot->lock);
		vt_ledger_for_each(&slot->ledger, visit, context);
		vt_lock_give(&slot->lock);
	}
}

void vt_tracker_snapshot_visiting(struct vt_tracker *tracker, struct vt_snapshot *out,
				  void (*visit)(const struct vt_allocation *, void *),
				  void *context)
{
	memset(out, 0, sizeof(*out));
	vt_tracker_lock_all(tracker);
	out->taken_ns = tracker->options.clock() - tracker->start_ns;
	for (int d = 0; d < VT_MAX_DEVICES; d++)
		copy_stats(&tracker->slots[d], &out->devices[d]);
	copy_stats(&tracker->slots[HOST_SLOT], &out->host);
	memcpy(out->failures, tracker->failures, sizeof(out->failures));
	out->failure_count = tracker->failure_count;
	memcpy(out->crossings, tracker->crossings, sizeof(out->crossings));
	out->crossing_count = tracker->crossing_count;
	out->counters = read_counters(tracker);
	for (int d = 0; visit && d <= VT_MAX_DEVICES; d++)
		vt_ledger_for_each(&tracker->slots[d].ledger, visit, context);
	vt_tracker_unlock_all(tracker);
}

void vt_tracker_snapshot(struct vt_tracker *tracker, struct vt_snapshot *out)
{
	vt_tracker_snapshot_visiting(tracker, out, NULL, NULL);
}

void vt_snapshot_free(struct vt_snapshot *snapshot)
{
	for (int d = 0; d < VT_MAX_DEVICES; d++)
		vt_device_stats_free(&snapshot->devices[d]);
	vt_device_stats_free(&snapshot->host);
}

static uint64_t monotonic_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now); /* async-signal-safe */
	return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

/* Waits for the lock until deadline (set on the first wait), yielding to
 * its holder now and then. */
static bool take_in_time(struct vt_lock *lock, uint64_t *deadline)
{
	for (unsigned spin = 0;; spin++) {
		if (vt_lock_try(lock))
			return true;
		if (spin % 64 != 63)
			continue;
		uint64_t now = monotonic_ns();
		if (!*deadline)
			*deadline = now + EMERGENCY_WAIT_NS;
		else if (now > *deadline)
			return false;
		sched_yield();
	}
}

/* A slot whose lock another thread still holds past the wait is read as
 * it stands: a signal's handler cannot wait for it. A race known and
 * accepted, and the one ThreadSanitizer is told of (tests/unit/tsan.supp),
 * so that it still reports any other. */
__attribute__((noinline)) static void read_unheld_slot(struct vt_device_stats *out,
						       const struct vt_device_stats *stats)
{
	*out = *stats;
}

static void read_slot(struct vt_device_stats *out, const struct vt_device_stats *stats, bool held)
{
	if (held)
		*out = *stats;
	else
		read_unheld_slot(out, stats);
}

void vt_tracker_peek(struct vt_tracker *tracker, struct vt_snapshot *out)
{
	uint64_t deadline = 0;
	out->hold = (struct vt_hold){0};
	for (int d = 0; d < VT_MAX_DEVICES; d++)
		if (take_in_time(&tracker->slots[d].lock, &deadline))
			out->hold.devices |= 1ull << d;
	out->hold.host = take_in_time(&tracker->slots[HOST_SLOT].lock, &deadline);
	out->taken_ns = tracker->options.clock() - tracker->start_ns;
	for (int d = 0; d < VT_MAX_DEVICES; d++)
		read_slot(&out->devices[d], &tracker->slots[d].stats,
			  out->hold.devices & (1ull << d));
	read_slot(&out->host, &tracker->slots[HOST_SLOT].stats, out->hold.host);
	unsigned count = tracker->failure_count;
	out->failure_count = count < VT_MAX_FAILURES ? count : VT_MAX_FAILURES;
	for (unsigned i = 0; i < out->failure_count; i++)
		out->failures[i] = tracker->failures[i];
	count = tracker->crossing_count;
	out->crossing_count = count < VT_MAX_CROSSINGS ? count : VT_MAX_CROSSINGS;
	for (unsigned i = 0; i < out->crossing_count; i++)
		out->crossings[i] = tracker->crossings[i];
	out->counters = read_counters(tracker);
}

void vt_tracker_peek_end(struct vt_tracker *tracker, struct vt_snapshot *snapshot)
{
	if (snapshot->hold.host)
		vt_lock_give(&tracker->slots[HOST_SLOT].lock);
	for (int d = VT_MAX_DEVICES - 1; d >= 0; d--)
		if (snapshot->hold.devices >> d & 1)
			vt_lock_give(&tracker->slots[d].lock);
	snapshot->hold = (struct vt_hold){0};
}

void vt_tracker_lock_all(struct vt_tracker *tracker)
{
	for (int d = 0; d <= VT_MAX_DEVICES; d++)
		vt_lock_take(&tracker->slots[d].lock);
	pthread_mutex_lock(&tracker->failures_lock);
}

void vt_tracker_unlock_all(struct vt_tracker *tracker)
{
	pthread_mutex_unlock(&tracker->failures_lock);
	for (int d = VT_MAX_DEVICES; d >= 0; d--)
		vt_lock_give(&tracker->slots[d].lock);
}
