#include "tracker.h"

#include <string.h>

void vt_tracker_init(struct vt_tracker *tracker, uint64_t start_ns)
{
	memset(tracker, 0, sizeof(*tracker));
	pthread_mutex_init(&tracker->lock, NULL);
	tracker->start_ns = start_ns;
}

void vt_tracker_destroy(struct vt_tracker *tracker)
{
	vt_ledger_clear(&tracker->ledger);
	pthread_mutex_destroy(&tracker->lock);
}

void vt_tracker_reset(struct vt_tracker *tracker, uint64_t start_ns)
{
	vt_ledger_clear(&tracker->ledger);
	memset(&tracker->state, 0, sizeof(tracker->state));
	tracker->start_ns = start_ns;
}

static struct vt_device_stats *stats_for(struct vt_tracker *tracker, int device, enum vt_kind kind)
{
	if (vt_kind_is_host(kind))
		return &tracker->state.host;
	if (device < 0 || device >= VT_MAX_DEVICES)
		return NULL;
	return &tracker->state.devices[device];
}

static void take_peak(struct vt_device_stats *stats, const struct vt_event *event, uint64_t at_ns,
		      uint64_t event_index)
{
	stats->peak = stats->live;
	stats->peak_ns = at_ns;
	stats->peak_event = event_index;
	stats->peak_api = event->api;
	stats->peak_driver_api = event->driver_api;
	for (int k = 0; k < VT_KIND_COUNT; k++)
		stats->kinds[k].at_peak = stats->kinds[k].live;
}

static void count_alloc(struct vt_device_stats *stats, const struct vt_event *event, uint64_t at_ns,
			uint64_t event_index)
{
	struct vt_kind_stats *kind = &stats->kinds[event->kind];
	stats->seen = true;
	stats->live += event->bytes;
	stats->live_count++;
	stats->allocs++;
	stats->bytes_allocated += event->bytes;
	kind->live += event->bytes;
	kind->allocs++;
	kind->bytes_allocated += event->bytes;
	if (kind->live > kind->peak)
		kind->peak = kind->live;
	if (stats->live > stats->peak)
		take_peak(stats, event, at_ns, event_index);
}

static void count_free(struct vt_device_stats *stats, const struct vt_allocation *allocation)
{
	struct vt_kind_stats *kind = &stats->kinds[allocation->kind];
	stats->live -= allocation->bytes;
	stats->live_count--;
	stats->frees++;
	kind->live -= allocation->bytes;
	kind->frees++;
}

static bool record_alloc(struct vt_tracker *tracker, struct vt_device_stats *stats,
			 const struct vt_event *event, uint64_t at_ns)
{
	struct vt_allocation allocation = {
		.address = event->address,
		.bytes = event->bytes,
		.device = event->device,
		.kind = event->kind,
	};
	bool oom;
	if (!vt_ledger_insert(&tracker->ledger, &allocation, &oom) && !oom) {
		tracker->state.counters.deduplicated++;
		return true;
	}
	count_alloc(stats, event, at_ns, tracker->state.counters.events);
	if (oom)
		tracker->state.counters.untracked++;
	return !oom;
}

/* A free names its family by event->kind: a device free of a host pointer
 * (or the reverse) fails in CUDA and leaves the memory live. */
static void record_free(struct vt_tracker *tracker, const struct vt_event *event)
{
	struct vt_allocation allocation;
	if (!vt_ledger_find(&tracker->ledger, event->address, &allocation) ||
	    vt_kind_is_host(allocation.kind) != vt_kind_is_host(event->kind)) {
		tracker->state.counters.unknown_frees++;
		return;
	}
	vt_ledger_remove(&tracker->ledger, event->address, &allocation);
	struct vt_device_stats *stats = stats_for(tracker, allocation.device, allocation.kind);
	if (stats)
		count_free(stats, &allocation);
}

static void record_failure(struct vt_tracker *tracker, struct vt_device_stats *stats,
			   const struct vt_event *event, uint64_t at_ns)
{
	stats->seen = true;
	stats->failures++;
	tracker->state.counters.failures_total++;
	if (tracker->state.failure_count >= VT_MAX_FAILURES)
		return;
	tracker->state.failures[tracker->state.failure_count++] = (struct vt_failure){
		.device = vt_kind_is_host(event->kind) ? VT_HOST_DEVICE : event->device,
		.kind = event->kind,
		.bytes = event->bytes,
		.error = event->error,
		.api = event->api,
		.driver_api = event->driver_api,
		.at_ns = at_ns,
		.live_bytes = stats->live,
	};
}

bool vt_tracker_record(struct vt_tracker *tracker, const struct vt_event *event, uint64_t now_ns)
{
	bool kept = true;
	pthread_mutex_lock(&tracker->lock);
	uint64_t at_ns = now_ns - tracker->start_ns;
	tracker->state.counters.events++;
	if (event->op == VT_OP_FREE) {
		record_free(tracker, event);
	} else {
		struct vt_device_stats *stats = stats_for(tracker, event->device, event->kind);
		if (!stats)
			tracker->state.counters.dropped++;
		else if (event->op == VT_OP_ALLOC)
			kept = record_alloc(tracker, stats, event, at_ns);
		else
			record_failure(tracker, stats, event, at_ns);
	}
	pthread_mutex_unlock(&tracker->lock);
	return kept;
}

void vt_tracker_snapshot(struct vt_tracker *tracker, struct vt_snapshot *out, uint64_t now_ns)
{
	pthread_mutex_lock(&tracker->lock);
	*out = tracker->state;
	out->taken_ns = now_ns - tracker->start_ns;
	pthread_mutex_unlock(&tracker->lock);
}
