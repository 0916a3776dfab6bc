#include "tracker.h"
#include "memory.h"

#include <stdlib.h>
#include <string.h>

#include "live_snapshot.h"
#include "lock.h"
#include "stacks.h"

#define HOST_SLOT VT_MAX_DEVICES

void vt_tracker_init(struct vt_tracker *tracker, const struct vt_tracker_options *options)
{
	memset(tracker, 0, sizeof(*tracker));
	tracker->options = *options;
	tracker->start_ns = options->clock();
	for (int i = 0; i <= VT_MAX_DEVICES; i++) {
		vt_lock_init(&tracker->slots[i].lock);
		vt_ledger_init(&tracker->slots[i].ledger);
		tracker->slots[i].stats.levels_above = UINT64_MAX;
	}
	pthread_mutex_init(&tracker->failures_lock, NULL);
}

void vt_device_stats_free(struct vt_device_stats *stats)
{
	free(stats->tags.items);
	free(stats->stacks.items);
	stats->tags = (struct vt_counter_array){0};
	stats->stacks = (struct vt_counter_array){0};
	vt_timeline_free(&stats->timeline);
	vt_marks_free(&stats->window.stacks);
}

static void free_failures(struct vt_tracker *tracker)
{
	for (unsigned i = 0; i < tracker->failure_count; i++)
		vt_live_snapshot_free(tracker->failures[i].snapshot);
	tracker->failure_count = 0;
	for (unsigned i = 0; i < tracker->crossing_count; i++)
		vt_live_snapshot_free(tracker->crossings[i].snapshot);
	tracker->crossing_count = 0;
}

void vt_tracker_destroy(struct vt_tracker *tracker)
{
	for (int i = 0; i <= VT_MAX_DEVICES; i++) {
		vt_ledger_destroy(&tracker->slots[i].ledger);
		vt_history_free(&tracker->slots[i].stats.history);
		vt_device_stats_free(&tracker->slots[i].stats);
	}
	free_failures(tracker);
	pthread_mutex_destroy(&tracker->failures_lock);
}

void vt_tracker_reset_unlocked(struct vt_tracker *tracker)
{
	struct vt_tracker_options options = tracker->options;
	for (int i = 0; i <= VT_MAX_DEVICES; i++) {
		vt_ledger_destroy(&tracker->slots[i].ledger);
		vt_history_free(&tracker->slots[i].stats.history);
		vt_device_stats_free(&tracker->slots[i].stats);
	}
	free_failures(tracker);
	vt_tracker_init(tracker, &options);
}

static struct vt_device_slot *slot_for(struct vt_tracker *tracker, int device, enum vt_kind kind)
{
	if (vt_kind_is_host(kind))
		return &tracker->slots[HOST_SLOT];
	if (device < 0 || device >= VT_MAX_DEVICES)
		return NULL;
	return &tracker->slots[device];
}

/* Grows the array to hold index; false when memory runs out. */
static bool grow_counters(struct vt_counter_array *array, uint32_t index)
{
	uint32_t size = array->size ? array->size : 16;
	while (size <= index)
		size *= 2;
	struct vt_counter *items = vt_mem_realloc(array->items, size * sizeof(*items));
	if (!items)
		return false;
	memset(items + array->size, 0, (size - array->size) * sizeof(*items));
	array->items = items;
	array->size = size;
	return true;
}

/* The counter for index, growing the array; index 0 when it cannot grow.
 * Inline: each event asks for two or three. */
static inline struct vt_counter *counter_at(struct vt_counter_array *array, uint32_t index)
{
	if (__builtin_expect(index < array->size, 1))
		return &array->items[index];
	if (grow_counters(array, index))
		return &array->items[index];
	return index ? counter_at(array, 0) : NULL;
}

static uint64_t since_start(void *context)
{
	struct vt_tracker *tracker = context;
	return tracker->options.clock() - tracker->start_ns;
}

/* Called with the device locked, before an event changes its bytes: the
 * cheap clock decides when a row closes (the exact one in the timeline's
 * first milliseconds, shorter than the cheap one's tick); the exact one,
 * read only then, dates the next. Inline, as is the tag's counter below:
 * every event passes both. */
static inline __attribute__((always_inline)) void advance_timeline(struct vt_tracker *tracker,
								   struct vt_device_stats *stats)
{
	uint64_t now = tracker->options.coarse_clock ? tracker->options.coarse_clock()
						     : tracker->options.clock();
	if (tracker->options.coarse_clock &&
	    (!stats->timeline.rows || now < stats->timeline.exact_until_ns))
		now = tracker->options.clock();
	if (vt_timeline_row_runs(&stats->timeline, now))
		return;
	/* The device's first event: its history starts with its timeline. */
	if (!stats->timeline.rows && !stats->history.changes)
		vt_history_start(&stats->history, tracker->options.history_bound);
	vt_timeline_advance(&stats->timeline, now, since_start, tracker, stats->live,
			    stats->tags.items, stats->tags.size, stats->history.changes);
}

/* The stack counter an event changes, its bytes kept aside for an open
 * window first. */
static struct vt_counter *changing_stack(struct vt_device_stats *stats, uint32_t stack)
{
	struct vt_counter *counter = counter_at(&stats->stacks, stack);
	if (counter && stats->window.active)
		vt_marks_changing(&stats->window.stacks, stack, counter->live);
	return counter;
}

/* After live bytes changed: an open window's peak. */
static void note_window(struct vt_device_stats *stats)
{
	if (stats->window.active && stats->live > stats->window.peak) {
		stats->window.peak = stats->live;
		vt_marks_high(&stats->window.stacks);
	}
}

/* The tag counter an event changes, its bytes kept aside for the timeline
 * first. */
static inline __attribute__((always_inline)) struct vt_counter *
changing_tag(struct vt_device_stats *stats, uint32_t tag)
{
	struct vt_counter *counter = counter_at(&stats->tags, tag);
	if (counter)
		vt_timeline_tag_changing(&stats->timeline, tag, counter->live);
	return counter;
}

static void count_up(struct vt_counter *counter, uint64_t bytes, uint32_t epoch)
{
	if (!counter)
		return;
	vt_counter_grow(counter, bytes, epoch);
	counter->allocs++;
	counter->bytes_allocated = vt_add_bytes(counter->bytes_allocated, bytes);
}

static void count_down(struct vt_counter *counter, uint64_t bytes, uint32_t epoch)
{
	if (!counter)
		return;
	vt_counter_shrink(counter, bytes, epoch);
	counter->frees++;
}

/* Every event applied so far, across slots, the caller's own included:
 * the number of the event being applied. Other slots are read without
 * their locks; only a new peak asks. */
uint64_t vt_tracker_slot_events(struct vt_tracker *tracker)
{
	uint64_t total =
		atomic_load_explicit(&tracker->slots[HOST_SLOT].events, memory_order_relaxed);
	uint64_t used = atomic_load_explicit(&tracker->devices_used, memory_order_relaxed);
	for (; used; used &= used - 1)
		total += atomic_load_explicit(&tracker->slots[__builtin_ctzll(used)].events,
					      memory_order_relaxed);
	return total;
}

static unsigned take_peak(struct vt_tracker *tracker, struct vt_device_slot *slot,
			  const struct vt_event *event)
{
	struct vt_device_stats *stats = &slot->stats;
	stats->peak = stats->live;
	stats->peak_ns = tracker->options.clock() - tracker->start_ns;
	stats->peak_event = vt_tracker_slot_events(tracker) +
			    atomic_load_explicit(&tracker->unknown_frees, memory_order_relaxed) +
			    atomic_load_explicit(&tracker->graph_frees, memory_order_relaxed) +
			    atomic_load_explicit(&tracker->dropped, memory_order_relaxed);
	stats->peak_api = event->api;
	stats->peak_driver_api = event->driver_api;
	stats->epoch++; /* every counter's live bytes are now its bytes at the peak */
	return slot != &tracker->slots[HOST_SLOT] ? VT_RECORDED_PEAK : 0;
}

/* Called with the device locked: live bytes reached the watermark. What
 * was live is kept as for an out-of-memory failure. */
static void cross_watermark(struct vt_tracker *tracker, struct vt_device_slot *slot,
			    const struct vt_event *event)
{
	struct vt_device_stats *stats = &slot->stats;
	stats->watermark_armed = false;
	struct vt_crossing crossing = {
		.device = (int)(slot - tracker->slots),
		.at_ns = tracker->options.clock() - tracker->start_ns,
		.event = vt_tracker_slot_events(tracker) +
			 atomic_load_explicit(&tracker->unknown_frees, memory_order_relaxed) +
			 atomic_load_explicit(&tracker->graph_frees, memory_order_relaxed) +
			 atomic_load_explicit(&tracker->dropped, memory_order_relaxed),
		.live_bytes = stats->live,
		.watermark = stats->watermark_high,
		.api = event->api,
		.snapshot = vt_live_snapshot_take(&stats->tags, &stats->stacks,
						  tracker->options.snapshot_top),
	};
	pthread_mutex_lock(&tracker->failures_lock);
	bool kept = tracker->crossing_count < VT_MAX_CROSSINGS;
	if (kept)
		tracker->crossings[tracker->crossing_count++] = crossing;
	pthread_mutex_unlock(&tracker->failures_lock);
	if (!kept)
		vt_live_snapshot_free(crossing.snapshot);
}

/* The levels the common paths compare live bytes with, from the peak
 * interval's and the watermark's state. */
static void watch_levels(struct vt_device_stats *stats)
{
	uint64_t interval = stats->interval.open ? stats->interval.peak : UINT64_MAX;
	uint64_t watermark = stats->watermark_armed ? stats->watermark_high - 1 : UINT64_MAX;
	stats->levels_above = interval < watermark ? interval : watermark;
	stats->rearm_below =
		stats->watermark_high && !stats->watermark_armed ? stats->watermark_low : 0;
}

/* Called with the device locked: live bytes passed a level. */
static unsigned note_levels(struct vt_tracker *tracker, struct vt_device_slot *slot,
			    const struct vt_event *event)
{
	struct vt_device_stats *stats = &slot->stats;
	unsigned outcome = 0;
	if (stats->interval.open && stats->live > stats->interval.peak) {
		stats->interval.peak = stats->live;
		stats->interval.peak_ns = tracker->options.clock() - tracker->start_ns;
	}
	if (stats->watermark_armed && stats->live >= stats->watermark_high) {
		cross_watermark(tracker, slot, event);
		outcome = VT_RECORDED_WATERMARK;
	}
	watch_levels(stats);
	return outcome;
}

/* Called with the device locked, after an event that may have raised its
 * bytes: the device's peak, an open window's peak, the open row. What the
 * caller is told of (a new peak, a crossing) is 0 on the common path. */
static unsigned after_growth(struct vt_tracker *tracker, struct vt_device_slot *slot,
			     const struct vt_event *event)
{
	struct vt_device_stats *stats = &slot->stats;
	unsigned outcome = 0;
	if (stats->live > stats->peak)
		outcome = take_peak(tracker, slot, event);
	if (stats->live > stats->levels_above)
		outcome |= note_levels(tracker, slot, event);
	note_window(stats);
	vt_timeline_after(&stats->timeline, stats->live);
	return outcome;
}

static unsigned count_alloc(struct vt_tracker *tracker, struct vt_device_slot *slot,
			    const struct vt_event *event)
{
	struct vt_device_stats *stats = &slot->stats;
	uint32_t epoch = stats->epoch;
	count_up(&stats->kinds[event->kind], event->bytes, epoch);
	stats->seen = true;
	if (!vt_kind_is_counted(event->kind))
		return 0;                     /* shown under its kind, never in the totals */
	counter_at(&stats->tags, event->tag); /* grown before the timeline reads the tags */
	advance_timeline(tracker, stats);
	count_up(changing_tag(stats, event->tag), event->bytes, epoch);
	if (event->stack) {
		struct vt_counter *stack = changing_stack(stats, event->stack);
		count_up(stack, event->bytes, epoch);
		if (stack)
			stack->tag = event->tag;
	}
	vt_history_note(&stats->history, event->stack, event->bytes);
	stats->live = vt_add_bytes(stats->live, event->bytes);
	stats->live_count++;
	stats->allocs++;
	stats->bytes_allocated = vt_add_bytes(stats->bytes_allocated, event->bytes);
	return after_growth(tracker, slot, event);
}

static void count_free(struct vt_tracker *tracker, struct vt_device_stats *stats,
		       const struct vt_allocation *allocation)
{
	uint32_t epoch = stats->epoch;
	count_down(&stats->kinds[allocation->kind], allocation->bytes, epoch);
	if (!vt_kind_is_counted(allocation->kind))
		return;
	counter_at(&stats->tags, allocation->tag);
	advance_timeline(tracker, stats);
	count_down(changing_tag(stats, allocation->tag), allocation->bytes, epoch);
	if (allocation->stack)
		count_down(changing_stack(stats, allocation->stack), allocation->bytes, epoch);
	vt_history_note(&stats->history, allocation->stack, 0 - allocation->bytes);
	stats->live = vt_sub_bytes(stats->live, allocation->bytes);
	stats->live_count--;
	stats->frees++;
	if (stats->live < stats->rearm_below) {
		stats->watermark_armed = true;
		watch_levels(stats);
	}
	vt_timeline_after(&stats->timeline, stats->live);
}

/* Called with the slot locked: one more event applied. */
static void count_event(struct vt_device_slot *slot)
{
	uint64_t events = atomic_load_explicit(&slot->events, memory_order_relaxed);
	atomic_store_explicit(&slot->events, events + 1, memory_order_relaxed);
}

/* The ledger's entry for an allocation or a level. */
static struct vt_allocation entry_of(const struct vt_event *event)
{
	return (struct vt_allocation){
		.address = event->address,
		.bytes = event->bytes,
		.stack = event->stack,
		.tag = event->tag,
		.device = (int8_t)(vt_kind_is_host(event->kind) ? VT_HOST_DEVICE : event->device),
		.kind = (uint8_t)event->kind,
	};
}

static unsigned record_alloc(struct vt_tracker *tracker, struct vt_device_slot *slot,
			     const struct vt_event *event)
{
	struct vt_allocation allocation = entry_of(event);
	unsigned outcome = 0;
	vt_lock_take(&slot->lock);
	count_event(slot);
	enum vt_ledger_result result = vt_ledger_insert(&slot->ledger, &allocation);
	if (result != VT_LEDGER_DUPLICATE)
		outcome = count_alloc(tracker, slot, event);
	/* Counted under the lock, with the event: a snapshot holds all the
	 * slots' locks, so it sees both or neither. */
	if (result == VT_LEDGER_DUPLICATE)
		atomic_fetch_add(&tracker->deduplicated, 1);
	if (result == VT_LEDGER_NO_MEMORY) {
		atomic_fetch_add(&tracker->untracked, 1);
		outcome |= VT_RECORDED_UNKEPT;
	}
	vt_lock_give(&slot->lock);
	return outcome;
}

/* What a free names: its address and the family of the call that made it. */
struct vt_free {
	uint64_t address;
	enum vt_kind family;
};

static bool free_in(struct vt_tracker *tracker, struct vt_device_slot *slot, const void *context)
{
	const struct vt_free *free_of = context;
	vt_lock_take(&slot->lock);
	struct vt_allocation *entry = vt_ledger_entry(&slot->ledger, free_of->address);
	bool found = entry && vt_kind_freed_by((enum vt_kind)entry->kind, free_of->family);
	if (found) {
		struct vt_allocation allocation = *entry;
		vt_ledger_erase(&slot->ledger, entry);
		count_event(slot);
		count_free(tracker, &slot->stats, &allocation);
	}
	vt_lock_give(&slot->lock);
	return found;
}

/* The device slot this thread's last free or retag found its allocation
 * in: where the next one most likely will (a free names no device). */
static __thread unsigned last_holder __attribute__((tls_model("initial-exec")));

typedef bool (*slot_action)(struct vt_tracker *, struct vt_device_slot *, const void *);

/* Tries action on each device slot that may hold an allocation, this
 * thread's last holder first, until one takes it. */
static inline __attribute__((always_inline)) bool
on_device_holder(struct vt_tracker *tracker, slot_action action, const void *context)
{
	unsigned first = last_holder;
	uint64_t used = atomic_load_explicit(&tracker->devices_used, memory_order_acquire);
	if ((used >> first & 1) && action(tracker, &tracker->slots[first], context))
		return true;
	for (used &= ~(1ull << first); used; used &= used - 1) {
		unsigned device = (unsigned)__builtin_ctzll(used);
		if (action(tracker, &tracker->slots[device], context)) {
			last_holder = device;
			return true;
		}
	}
	return false;
}

/* Each slot holds one family (host or device memory), and a free names its
 * family: a free of another family's memory (a host pointer to cuMemFree,
 * an array to cudaFree) fails in CUDA and leaves it live. */
void vt_tracker_free(struct vt_tracker *tracker, uint64_t address, enum vt_kind family)
{
	struct vt_free free_of = {address, family};
	bool found = vt_kind_is_host(family)
			     ? free_in(tracker, &tracker->slots[HOST_SLOT], &free_of)
			     : on_device_holder(tracker, free_in, &free_of);
	/* A graph allocation freed outside its graph (cudaFree, cudaFreeAsync
	 * of a node's address): the source names it by the kind graph. */
	if (!found)
		atomic_fetch_add(family == VT_KIND_GRAPH ? &tracker->graph_frees
							 : &tracker->unknown_frees,
				 1);
}

static void record_failure(struct vt_tracker *tracker, struct vt_device_slot *slot,
			   const struct vt_event *event)
{
	struct vt_failure failure = {
		.device = vt_kind_is_host(event->kind) ? VT_HOST_DEVICE : event->device,
		.kind = event->kind,
		.bytes = event->bytes,
		.error = event->error,
		.api = event->api,
		.driver_api = event->driver_api,
		.at_ns = tracker->options.clock() - tracker->start_ns,
		.tag = event->tag,
		.stack = event->stack,
	};
	/* All of it under the slot's lock, the list too (its lock nests inside
	 * a slot's): a snapshot sees the failure everywhere or nowhere. */
	vt_lock_take(&slot->lock);
	atomic_fetch_add(&tracker->failures_total, 1);
	count_event(slot);
	slot->stats.seen = true;
	slot->stats.failures++;
	failure.live_bytes = slot->stats.live;
	if (event->error == VT_ERROR_OUT_OF_MEMORY &&
	    slot->snapshots < tracker->options.oom_snapshots) {
		slot->snapshots++;
		failure.snapshot = vt_live_snapshot_take(&slot->stats.tags, &slot->stats.stacks,
							 tracker->options.snapshot_top);
	}
	pthread_mutex_lock(&tracker->failures_lock);
	if (tracker->failure_count < VT_MAX_FAILURES)
		tracker->failures[tracker->failure_count++] = failure;
	pthread_mutex_unlock(&tracker->failures_lock);
	vt_lock_give(&slot->lock);
}

/* One side of a level's change on a counter: down from what it stood at,
 * then up to what it holds; it counts as one allocation while above 0. */
static void level_counter(struct vt_counter *counter, uint64_t before, uint64_t after,
			  uint32_t epoch)
{
	if (!counter)
		return;
	if (before)
		vt_counter_shrink(counter, before, epoch);
	if (after)
		vt_counter_grow(counter, after, epoch);
	counter->allocs += !before && after;
	counter->frees += before && !after;
	counter->bytes_allocated =
		vt_add_bytes(counter->bytes_allocated, vt_sub_bytes(after, before));
}

/* A level's change in the history: one record when it keeps its stack,
 * else the old stack's bytes leave before the new one's come, so the state
 * between them is never above both ends (never a row's first highest). */
static void note_level(struct vt_device_stats *stats, const struct vt_allocation *before,
		       uint32_t stack, uint64_t after)
{
	if (before->stack == stack) {
		vt_history_note(&stats->history, stack, after - before->bytes);
		return;
	}
	if (before->bytes)
		vt_history_note(&stats->history, before->stack, 0 - before->bytes);
	vt_history_note(&stats->history, stack, after);
}

/* Called with the device locked. The change is applied at once, so no
 * total between the old and the new size is ever seen. A level that keeps
 * its tag (or stack) is one allocation growing or shrinking there; one that
 * changes it ends on the old and begins on the new. */
static unsigned count_level(struct vt_tracker *tracker, struct vt_device_slot *slot,
			    const struct vt_allocation *before, const struct vt_event *event)
{
	struct vt_device_stats *stats = &slot->stats;
	uint32_t epoch = stats->epoch;
	uint64_t after = event->bytes;
	stats->seen = true;
	counter_at(&stats->tags, before->tag > event->tag ? before->tag : event->tag);
	advance_timeline(tracker, stats);
	level_counter(&stats->kinds[event->kind], before->bytes, after, epoch);
	if (before->tag == event->tag) {
		level_counter(changing_tag(stats, event->tag), before->bytes, after, epoch);
	} else {
		level_counter(changing_tag(stats, before->tag), before->bytes, 0, epoch);
		level_counter(changing_tag(stats, event->tag), 0, after, epoch);
	}
	if (before->stack && before->stack != event->stack)
		level_counter(changing_stack(stats, before->stack), before->bytes, 0, epoch);
	if (event->stack) {
		uint64_t had = before->stack == event->stack ? before->bytes : 0;
		struct vt_counter *stack = changing_stack(stats, event->stack);
		level_counter(stack, had, after, epoch);
		if (stack && after)
			stack->tag = event->tag;
	}
	note_level(stats, before, event->stack, after);
	stats->live = vt_add_bytes(vt_sub_bytes(stats->live, before->bytes), after);
	stats->live_count +=
		(uint64_t)(!before->bytes && after) - (uint64_t)(before->bytes && !after);
	stats->allocs += !before->bytes && after;
	stats->frees += before->bytes && !after;
	stats->bytes_allocated =
		vt_add_bytes(stats->bytes_allocated, vt_sub_bytes(after, before->bytes));
	return after_growth(tracker, slot, event);
}

/* The level's old entry and its new one change under one lock, so no total
 * between the old and the new size is ever seen. */
static unsigned record_level(struct vt_tracker *tracker, struct vt_device_slot *slot,
			     const struct vt_event *event)
{
	struct vt_allocation before = {0};
	struct vt_allocation now = entry_of(event);
	vt_lock_take(&slot->lock);
	count_event(slot);
	struct vt_allocation *entry = vt_ledger_entry(&slot->ledger, event->address);
	if (entry && entry->kind == event->kind) {
		before = *entry;
		vt_ledger_erase(&slot->ledger, entry);
	}
	bool kept = !event->bytes || vt_ledger_insert(&slot->ledger, &now) == VT_LEDGER_INSERTED;
	unsigned outcome = count_level(tracker, slot, &before, event);
	if (!kept) {
		atomic_fetch_add(&tracker->untracked, 1);
		outcome |= VT_RECORDED_UNKEPT;
	}
	vt_lock_give(&slot->lock);
	return outcome;
}

/* A context is not an allocation event: it only puts its device in the
 * report. */
static void record_context(struct vt_device_slot *slot)
{
	vt_lock_take(&slot->lock);
	slot->stats.seen = true;
	slot->stats.contexts++;
	vt_lock_give(&slot->lock);
}

/* Device slots are marked on their first event, before any allocation of
 * theirs can be live: frees and retags search only the marked. */
static void mark_used(struct vt_tracker *tracker, struct vt_device_slot *slot)
{
	unsigned index = (unsigned)(slot - tracker->slots);
	if (index == HOST_SLOT)
		return;
	uint64_t bit = 1ull << index;
	if (!(atomic_load_explicit(&tracker->devices_used, memory_order_relaxed) & bit))
		atomic_fetch_or_explicit(&tracker->devices_used, bit, memory_order_release);
}

unsigned vt_tracker_record(struct vt_tracker *tracker, const struct vt_event *event)
{
	if (event->op == VT_OP_FREE) {
		vt_tracker_free(tracker, event->address, event->kind);
		return 0;
	}
	struct vt_device_slot *slot = slot_for(tracker, event->device, event->kind);
	if (!slot) {
		if (event->op != VT_OP_CONTEXT)
			atomic_fetch_add(&tracker->dropped, 1);
		return 0;
	}
	mark_used(tracker, slot);
	if (event->op == VT_OP_ALLOC)
		return record_alloc(tracker, slot, event);
	if (event->op == VT_OP_LEVEL)
		return record_level(tracker, slot, event);
	if (event->op == VT_OP_CONTEXT)
		record_context(slot);
	else
		record_failure(tracker, slot, event);
	return 0;
}

bool vt_tracker_crossing(struct vt_tracker *tracker, unsigned index, struct vt_crossing *out)
{
	pthread_mutex_lock(&tracker->failures_lock);
	bool there = index < tracker->crossing_count;
	if (there)
		*out = tracker->crossings[index];
	pthread_mutex_unlock(&tracker->failures_lock);
	return there;
}

struct retag {
	uint64_t address;
	uint32_t tag;
	uint32_t from, to; /* the entry's stack, as last seen, and its frames with tag */
	uint32_t *seen;    /* where the entry's stack is written when it is not from */
};

/* Called with the device locked: bytes move from one tag's counter to
 * another's. */
static void move_tag(struct vt_device_stats *stats, uint32_t from_tag, uint32_t to_tag,
		     uint64_t bytes)
{
	/* Grow the array for the larger id first: growing moves it, and the
	 * two counters must point into the same array. */
	counter_at(&stats->tags, from_tag > to_tag ? from_tag : to_tag);
	struct vt_counter *from = counter_at(&stats->tags, from_tag);
	struct vt_counter *to = counter_at(&stats->tags, to_tag);
	if (!from || !to)
		return;
	vt_timeline_tag_changing(&stats->timeline, from_tag, from->live);
	vt_timeline_tag_changing(&stats->timeline, to_tag, to->live);
	vt_counter_shrink(from, bytes, stats->epoch);
	vt_counter_grow(to, bytes, stats->epoch);
}

/* Called with the device locked: the same for stacks, the tag being part
 * of one; false (nothing moved) without room for the new stack's counter. */
static bool move_stack(struct vt_device_stats *stats, uint32_t from_stack, uint32_t to_stack,
		       uint32_t tag, uint64_t bytes)
{
	counter_at(&stats->stacks, from_stack > to_stack ? from_stack : to_stack);
	struct vt_counter *from = changing_stack(stats, from_stack);
	struct vt_counter *to = changing_stack(stats, to_stack);
	if (!from || !to)
		return false;
	vt_counter_shrink(from, bytes, stats->epoch);
	vt_counter_grow(to, bytes, stats->epoch);
	to->tag = tag;
	vt_history_note(&stats->history, from_stack, 0 - bytes);
	vt_history_note(&stats->history, to_stack, bytes);
	return true;
}

/* Applies a retag whose stacks were found for the entry's stack as it is
 * now; else tells what it is, for the caller to find them again. */
static bool retag_in(struct vt_tracker *tracker, struct vt_device_slot *slot, const void *context)
{
	(void)tracker;
	const struct retag *retag = context;
	vt_lock_take(&slot->lock);
	struct vt_allocation *entry = vt_ledger_entry(&slot->ledger, retag->address);
	if (entry && entry->stack != retag->from && retag->seen) {
		*retag->seen = entry->stack;
	} else if (entry) {
		/* Memory only shown was never in the tags' totals: its tag alone
		 * changes, for the leaks list and for its free. */
		bool counted = vt_kind_is_counted(entry->kind);
		if (counted)
			move_tag(&slot->stats, entry->tag, retag->tag, entry->bytes);
		if (retag->to != retag->from &&
		    (!counted ||
		     move_stack(&slot->stats, retag->from, retag->to, retag->tag, entry->bytes)))
			entry->stack = retag->to;
		entry->tag = retag->tag;
	}
	vt_lock_give(&slot->lock);
	return entry != NULL;
}

static bool retag_on_holder(struct vt_tracker *tracker, const struct retag *retag)
{
	return on_device_holder(tracker, retag_in, retag) ||
	       retag_in(tracker, &tracker->slots[HOST_SLOT], retag);
}

/* The bytes move to the entry's frames with the new tag, found outside the
 * device's lock (vt_stack_with_tag). An entry whose stack changed meanwhile
 * (freed, its address reused) is looked at again. */
bool vt_tracker_retag(struct vt_tracker *tracker, uint64_t address, uint32_t tag)
{
	uint32_t seen = VT_STACK_NONE;
	struct retag retag = {address, tag, VT_STACK_NONE, VT_STACK_NONE, &seen};
	for (int round = 0; round < 4; round++) {
		if (!retag_on_holder(tracker, &retag))
			return false;
		if (seen == retag.from)
			return true;
		retag.from = seen;
		retag.tag = tag;
		retag.to = vt_stack_with_tag(seen, &retag.tag);
	}
	retag = (struct retag){address, tag, seen, seen, NULL};
	return retag_on_holder(tracker, &retag);
}

void vt_tracker_window_begin(struct vt_tracker *tracker)
{
	for (int d = 0; d < VT_MAX_DEVICES; d++) {
		struct vt_device_slot *slot = &tracker->slots[d];
		vt_lock_take(&slot->lock);
		slot->stats.window.active = true;
		slot->stats.window.peak = slot->stats.live;
		vt_marks_high(&slot->stats.window.stacks); /* every stack's bytes now */
		vt_lock_give(&slot->lock);
	}
}

void vt_tracker_set_watermark(struct vt_tracker *tracker, int device, uint64_t high, uint64_t low)
{
	if (device < 0 || device >= VT_MAX_DEVICES)
		return;
	struct vt_device_slot *slot = &tracker->slots[device];
	vt_lock_take(&slot->lock);
	slot->stats.watermark_high = high;
	slot->stats.watermark_low = low < high ? low : high;
	slot->stats.watermark_armed = high && slot->stats.live < high;
	watch_levels(&slot->stats);
	vt_lock_give(&slot->lock);
}

void vt_tracker_reset_interval(struct vt_tracker *tracker)
{
	uint64_t now = tracker->options.clock() - tracker->start_ns;
	for (int d = 0; d <= VT_MAX_DEVICES; d++) {
		struct vt_device_slot *slot = &tracker->slots[d];
		vt_lock_take(&slot->lock);
		slot->stats.interval = (struct vt_interval){true, now, slot->stats.live, now};
		watch_levels(&slot->stats);
		vt_lock_give(&slot->lock);
	}
}

/* Called with the device locked: the stack holding most at the window's
 * peak. */
static void window_top_stack(const struct vt_device_stats *stats, struct vt_window_peak *out)
{
	out->stack = 0;
	out->stack_bytes = 0;
	for (uint32_t id = 1; id < stats->stacks.size; id++) {
		uint64_t bytes =
			vt_marks_value(&stats->window.stacks, id, stats->stacks.items[id].live);
		if (bytes > out->stack_bytes) {
			out->stack = id;
			out->stack_bytes = bytes;
		}
	}
}

bool vt_tracker_window_peak(struct vt_tracker *tracker, struct vt_window_peak *out)
{
	bool any = false;
	*out = (struct vt_window_peak){.device = -1};
	for (int d = 0; d < VT_MAX_DEVICES; d++) {
		struct vt_device_slot *slot = &tracker->slots[d];
		vt_lock_take(&slot->lock);
		const struct vt_device_stats *stats = &slot->stats;
		if (stats->window.active) {
			any = true;
			if (stats->seen && (out->device < 0 || stats->window.peak > out->bytes)) {
				out->device = d;
				out->bytes = stats->window.peak;
				window_top_stack(stats, out);
			}
		}
		vt_lock_give(&slot->lock);
	}
	return any;
}
