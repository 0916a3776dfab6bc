/* Counters and exact peaks per device and kind, over the ledger, behind one
 * lock. Sources hand events to vt_tracker_record; the report reads a
 * vt_snapshot. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "ledger.h"

#define VT_MAX_DEVICES  64
#define VT_MAX_FAILURES 64

struct vt_kind_stats {
	uint64_t live;
	uint64_t peak;
	uint64_t at_peak; /* bytes of this kind live at the owner's peak */
	uint64_t allocs;
	uint64_t frees;
	uint64_t bytes_allocated;
};

/* One device, or the host pseudo-device for host kinds. */
struct vt_device_stats {
	bool seen;
	uint64_t live;
	uint64_t live_count;
	uint64_t peak;
	uint64_t peak_ns;    /* since the tracker started */
	uint64_t peak_event; /* 1-based index of the event that set the peak */
	const char *peak_api;
	const char *peak_driver_api;
	uint64_t allocs;
	uint64_t frees;
	uint64_t failures;
	uint64_t bytes_allocated;
	struct vt_kind_stats kinds[VT_KIND_COUNT];
};

struct vt_failure {
	int device;
	enum vt_kind kind;
	uint64_t bytes;
	int error;
	const char *api;
	const char *driver_api;
	uint64_t at_ns;
	uint64_t live_bytes; /* the device's live bytes when it failed */
};

struct vt_tracer_counters {
	uint64_t events;
	uint64_t deduplicated;
	uint64_t unknown_frees;
	uint64_t dropped;        /* events for a device ordinal out of range */
	uint64_t untracked;      /* allocations counted but not kept: no host memory */
	uint64_t failures_total; /* may exceed the failures kept */
};

struct vt_snapshot {
	uint64_t taken_ns;
	struct vt_device_stats devices[VT_MAX_DEVICES];
	struct vt_device_stats host;
	struct vt_failure failures[VT_MAX_FAILURES];
	unsigned failure_count;
	struct vt_tracer_counters counters;
};

struct vt_tracker {
	pthread_mutex_t lock;
	uint64_t start_ns;
	struct vt_ledger ledger;
	struct vt_snapshot state;
	bool warned_untracked;
};

void vt_tracker_init(struct vt_tracker *tracker, uint64_t start_ns);
void vt_tracker_destroy(struct vt_tracker *tracker);
/* Applies one event at time now_ns. Returns false only when the event could
 * not be kept in full (no host memory): counted, but its free will be
 * unknown. */
bool vt_tracker_record(struct vt_tracker *tracker, const struct vt_event *event, uint64_t now_ns);
void vt_tracker_snapshot(struct vt_tracker *tracker, struct vt_snapshot *out, uint64_t now_ns);
/* Forgets everything, as a fresh process would (the child after fork). */
void vt_tracker_reset(struct vt_tracker *tracker, uint64_t start_ns);
