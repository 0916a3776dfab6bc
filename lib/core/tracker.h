/* Counters and exact peaks per device, kind, tag and stack. Each device,
 * and the host, has one slot whose lock guards both its ledger of live
 * allocations and its counters: an event takes exactly one lock, and
 * threads on different devices never share one. Sources hand events to
 * vt_tracker_record; the report reads a vt_snapshot. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "counter.h"
#include "event.h"
#include "history.h"
#include "ledger.h"
#include "live_snapshot.h"
#include "lock.h"
#include "marks.h"
#include "timeline.h"

#define VT_MAX_DEVICES  64
#define VT_MAX_FAILURES 64
/* The CUresult that means out of memory: only those failures get snapshots. */
#define VT_ERROR_OUT_OF_MEMORY 2

/* A window of time (vramtrace_window_begin) with a peak of its own, and
 * the stacks' bytes at it. */
struct vt_window {
	bool active;
	uint64_t peak;
	struct vt_marks stacks;
};

/* The peak since the last reset (vramtrace snapshot --reset-peak), beside
 * the run's own, which a reset never touches. */
struct vt_interval {
	bool open;
	uint64_t since_ns;
	uint64_t peak;
	uint64_t peak_ns;
};

/* One device, or the host pseudo-device for host kinds. What every event
 * changes comes first, so that it shares cache lines with the slot's lock:
 * when threads on other cores use the device, an event moves as few lines
 * as it can. */
struct vt_device_stats {
	bool seen;
	uint32_t epoch; /* bumped by every new peak */
	uint64_t live;
	uint64_t live_count;
	uint64_t peak;
	uint64_t allocs;
	uint64_t frees;
	uint64_t bytes_allocated;
	/* Live bytes above this make the peak interval or the watermark look
	 * (UINT64_MAX when neither watches); below rearm_below after a free,
	 * the watermark re-arms (0 unless it waits to). One comparison each
	 * on the common paths. */
	uint64_t levels_above, rearm_below;
	struct vt_counter_array tags;
	struct vt_counter_array stacks;
	struct vt_timeline timeline;
	/* Every change of live bytes, by stack: the tracker's own; a
	 * snapshot's is a view of the same records (never freed through it). */
	struct vt_history history;
	struct vt_window window; /* the tracker's own; zero in a snapshot */
	uint64_t peak_ns;        /* since the tracker started */
	uint64_t peak_event;     /* 1-based index of the event that set the peak */
	const char *peak_api;
	const char *peak_driver_api;
	uint64_t failures;
	uint64_t contexts; /* made on it: cuCtxCreate, primary contexts retained */
	struct vt_interval interval;
	/* VRAMTRACE_WATERMARK: crossing high (0: none) records what was live,
	 * once, until live bytes fall below low again. */
	uint64_t watermark_high, watermark_low;
	bool watermark_armed;
	/* From a line's start: the first kind (device memory) takes one line. */
	struct vt_counter kinds[VT_KIND_COUNT] __attribute__((aligned(64)));
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
	uint32_t tag;
	uint32_t stack;
	const struct vt_oom_snapshot *snapshot; /* NULL unless one was taken */
};

/* The moment a device's live bytes first reached its watermark (again,
 * after falling below the lower mark), and what was live then. */
struct vt_crossing {
	int device;
	uint64_t at_ns;
	uint64_t event; /* as a peak's: the 1-based number of the event */
	uint64_t live_bytes;
	uint64_t watermark; /* the mark crossed */
	const char *api;
	const struct vt_oom_snapshot *snapshot; /* NULL when out of memory */
};

#define VT_MAX_CROSSINGS 64

struct vt_tracer_counters {
	uint64_t events;
	uint64_t deduplicated;
	uint64_t unknown_frees;
	uint64_t graph_frees;    /* frees of graph allocations outside the graph */
	uint64_t dropped;        /* events for a device ordinal out of range */
	uint64_t untracked;      /* allocations counted but not kept: no host memory */
	uint64_t failures_total; /* may exceed the failures kept */
};

/* The slots whose locks a snapshot holds: every one, but in an emergency
 * those that did not come free in time. */
struct vt_hold {
	uint64_t devices; /* a bit per device slot */
	bool host;
};

struct vt_snapshot {
	uint64_t taken_ns;
	struct vt_hold hold; /* an emergency's, until vt_tracker_peek_end */
	struct vt_device_stats devices[VT_MAX_DEVICES];
	struct vt_device_stats host;
	struct vt_failure failures[VT_MAX_FAILURES];
	unsigned failure_count;
	struct vt_crossing crossings[VT_MAX_CROSSINGS];
	unsigned crossing_count;
	struct vt_tracer_counters counters;
};

struct vt_tracker_options {
	unsigned oom_snapshots; /* per device */
	unsigned snapshot_top;  /* stacks kept in each OOM snapshot */
	/* The clocks are read with a device locked: they must neither lock
	 * nor allocate, and call nothing of the tracer's. */
	uint64_t (*clock)(void);
	/* A cheaper, coarser reading of the same clock, read on every event to
	 * advance the timeline; NULL: clock. */
	uint64_t (*coarse_clock)(void);
	/* Changes of live bytes kept per device for the moments (history.h);
	 * 0 keeps none. */
	uint64_t history_bound;
};

struct vt_device_slot {
	struct vt_lock lock;
	/* The events applied here. Changed only under the lock, read by other
	 * slots without it to number a new peak's event. */
	_Atomic uint64_t events;
	struct vt_device_stats stats; /* its hot fields beside the lock */
	unsigned snapshots;
	struct vt_ledger ledger; /* this device's live allocations */
} __attribute__((aligned(64)));

struct vt_tracker {
	uint64_t start_ns;
	struct vt_tracker_options options;
	struct vt_device_slot slots[VT_MAX_DEVICES + 1]; /* the last is the host */
	_Atomic uint64_t devices_used; /* a bit per device slot that has had an event */
	pthread_mutex_t failures_lock;
	struct vt_failure failures[VT_MAX_FAILURES];
	unsigned failure_count;
	struct vt_crossing crossings[VT_MAX_CROSSINGS]; /* under failures_lock */
	unsigned crossing_count;
	/* Events no slot applied are the unknown frees and the dropped. */
	_Atomic uint64_t deduplicated, unknown_frees, graph_frees, dropped, untracked,
		failures_total;
};

void vt_tracker_init(struct vt_tracker *tracker, const struct vt_tracker_options *options);
void vt_tracker_destroy(struct vt_tracker *tracker);
/* What applying an event did that its caller acts on, once the tracker's
 * locks are given back: a set of these, 0 on the common path. The tracker
 * calls nothing above it; the caller tells whoever must know. */
enum vt_recorded {
	/* Counted, but not kept in full (no host memory): its free will be
	 * unknown. */
	VT_RECORDED_UNKEPT = 1u << 0,
	/* A new peak of the event's device (never of the host). */
	VT_RECORDED_PEAK = 1u << 1,
	/* The device's live bytes crossed its watermark: a crossing was
	 * recorded (vt_tracker_crossing), unless VT_MAX_CROSSINGS were. */
	VT_RECORDED_WATERMARK = 1u << 2,
};

/* Applies one event; returns what it did as a set of enum vt_recorded. */
unsigned vt_tracker_record(struct vt_tracker *tracker, const struct vt_event *event);
/* A free (an event of op VT_OP_FREE, kind family), without the rest of an
 * event: the hot path's frees name only these two. */
void vt_tracker_free(struct vt_tracker *tracker, uint64_t address, enum vt_kind family);
/* The index-th crossing of a watermark recorded, copied under the lock
 * that guards the list; false when there is none. */
bool vt_tracker_crossing(struct vt_tracker *tracker, unsigned index, struct vt_crossing *out);
/* Moves a live allocation to another tag; false when it is not live. */
bool vt_tracker_retag(struct vt_tracker *tracker, uint64_t address, uint32_t tag);
/* A shallow copy taken without allocation, for a signal handler: its
 * arrays are the tracker's own (never free them). Each slot's lock is taken
 * if it comes free within a bounded wait, and held until vt_tracker_peek_end,
 * so what other threads do cannot change the copy while it is written; a
 * slot whose lock stays held (by the very thread the signal interrupted)
 * is read as it stands, and may read half-updated. */
void vt_tracker_peek(struct vt_tracker *tracker, struct vt_snapshot *out);
/* Gives back the locks vt_tracker_peek took. */
void vt_tracker_peek_end(struct vt_tracker *tracker, struct vt_snapshot *snapshot);
/* One consistent cut: every slot locked at once while its figures are
 * copied, the counters read and (when visit is not NULL) every live
 * allocation visited, so what the copy says adds up whatever other threads
 * do. Release with vt_snapshot_free. */
void vt_tracker_snapshot_visiting(struct vt_tracker *tracker, struct vt_snapshot *out,
				  void (*visit)(const struct vt_allocation *, void *),
				  void *context);
/* The same without visiting the live allocations. */
void vt_tracker_snapshot(struct vt_tracker *tracker, struct vt_snapshot *out);
void vt_snapshot_free(struct vt_snapshot *snapshot);
/* Frees a device's arrays. */
void vt_device_stats_free(struct vt_device_stats *stats);
/* The events the slots applied, read without their locks. */
uint64_t vt_tracker_slot_events(struct vt_tracker *tracker);
/* Visits every live allocation, one device locked at a time. */
void vt_tracker_for_each_live(struct vt_tracker *tracker,
			      void (*visit)(const struct vt_allocation *, void *), void *context);
/* Opens a window on every device: each keeps a peak of its own from now. */
void vt_tracker_window_begin(struct vt_tracker *tracker);

struct vt_window_peak {
	int device;
	uint64_t bytes;
	uint32_t stack;       /* the stack holding most at that peak, or VT_STACK_NONE */
	uint64_t stack_bytes; /* what it held */
};

/* The highest device peak since the window began; false without one. */
bool vt_tracker_window_peak(struct vt_tracker *tracker, struct vt_window_peak *out);

/* A watermark for device: crossing high records what was live; it re-arms
 * once live bytes fall below low. high 0 turns it off. */
void vt_tracker_set_watermark(struct vt_tracker *tracker, int device, uint64_t high, uint64_t low);

/* Starts a new peak interval on every device: each keeps the peak since
 * now beside the run's. */
void vt_tracker_reset_interval(struct vt_tracker *tracker);

/* Forgets everything without taking locks: for the child after fork. */
void vt_tracker_reset_unlocked(struct vt_tracker *tracker);
/* Every lock held, in one order (across fork), then given back. */
void vt_tracker_lock_all(struct vt_tracker *tracker);
void vt_tracker_unlock_all(struct vt_tracker *tracker);

/* A counter's bytes at its device's peak. */
static inline uint64_t vt_stats_at_peak(const struct vt_device_stats *stats,
					const struct vt_counter *counter)
{
	return vt_counter_at_peak(counter, stats->epoch);
}
