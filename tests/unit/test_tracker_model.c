/* The tracker against a naive model of the same rules, on long random runs
 * of events: allocations of every kind on four devices and the host, frees
 * (found, of the wrong family, of unknown addresses), duplicates, events
 * for devices out of range, graph memory levels, failures and retags. The
 * model has none of the tracker's fast paths: it searches every live
 * allocation, counts events globally, and copies every counter at each new
 * peak instead of keeping epochs. Any number that differs fails. */
#include <criterion/criterion.h>
#include <string.h>

#include "tracker.h"

#define DEVICES     4
#define SLOTS       (DEVICES + 1) /* the last is the host */
#define TAGS        6
#define STACKS      9
#define MAX_LIVE    4096
#define EVENTS      60000
#define CHECK_EVERY 997

struct model_counter {
	uint64_t live, peak, at_peak, allocs, frees, bytes_allocated;
	uint32_t tag;
};

struct model_slot {
	uint64_t live, live_count, peak, peak_event, allocs, frees, bytes_allocated, failures;
	struct model_counter kinds[VT_KIND_COUNT], tags[TAGS], stacks[STACKS];
};

struct model_allocation {
	uint64_t address, bytes;
	int slot;
	enum vt_kind kind;
	uint32_t tag;
	uint32_t stack;
};

static struct model {
	struct model_slot slots[SLOTS];
	struct model_allocation live[MAX_LIVE];
	unsigned live_total;
	uint64_t events, deduplicated, unknown_frees, dropped;
} model;

static struct vt_tracker tracker;
static uint64_t now, rng;

static uint64_t fake_clock(void)
{
	return now;
}

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned below(unsigned bound)
{
	return (unsigned)(next_random() % bound);
}

static int slot_of(int device, enum vt_kind kind)
{
	return vt_kind_is_host(kind) ? DEVICES : device;
}

static struct model_allocation *model_find(int slot, uint64_t address)
{
	for (unsigned i = 0; i < model.live_total; i++)
		if (model.live[i].slot == slot && model.live[i].address == address)
			return &model.live[i];
	return NULL;
}

static void model_forget(struct model_allocation *allocation)
{
	*allocation = model.live[--model.live_total];
}

static void counter_change(struct model_counter *counter, uint64_t before, uint64_t after)
{
	counter->live = counter->live - before + after;
	if (counter->live > counter->peak)
		counter->peak = counter->live;
}

/* Every counter's bytes at the peak, copied the slow way. */
static void model_after_growth(struct model_slot *slot)
{
	if (slot->live <= slot->peak)
		return;
	slot->peak = slot->live;
	slot->peak_event = model.events;
	for (int k = 0; k < VT_KIND_COUNT; k++)
		slot->kinds[k].at_peak = slot->kinds[k].live;
	for (int t = 0; t < TAGS; t++)
		slot->tags[t].at_peak = slot->tags[t].live;
	for (int s = 0; s < STACKS; s++)
		slot->stacks[s].at_peak = slot->stacks[s].live;
}

static void count_in(struct model_counter *counter, uint64_t bytes)
{
	counter_change(counter, 0, bytes);
	counter->allocs++;
	counter->bytes_allocated += bytes;
}

static void count_out(struct model_counter *counter, uint64_t bytes)
{
	counter_change(counter, bytes, 0);
	counter->frees++;
}

static void model_alloc(const struct vt_event *event)
{
	int index = slot_of(event->device, event->kind);
	model.events++;
	if (model_find(index, event->address)) {
		model.deduplicated++;
		return;
	}
	model.live[model.live_total++] = (struct model_allocation){
		event->address, event->bytes, index, event->kind, event->tag, event->stack};
	struct model_slot *slot = &model.slots[index];
	count_in(&slot->kinds[event->kind], event->bytes);
	if (!vt_kind_is_counted(event->kind))
		return;
	count_in(&slot->tags[event->tag], event->bytes);
	if (event->stack) {
		count_in(&slot->stacks[event->stack], event->bytes);
		slot->stacks[event->stack].tag = event->tag;
	}
	slot->live += event->bytes;
	slot->live_count++;
	slot->allocs++;
	slot->bytes_allocated += event->bytes;
	model_after_growth(slot);
}

/* The family of free that ends each kind: external memory (a buffer or a
 * mipmapped array) ends by either of two. */
static enum vt_kind family_of(enum vt_kind kind)
{
	switch (kind) {
	case VT_KIND_ARRAY: return VT_KIND_ARRAY;
	case VT_KIND_VMM:
	case VT_KIND_MULTICAST: return VT_KIND_VMM;
	case VT_KIND_IPC_IMPORT:
	case VT_KIND_PINNED_HOST:
	case VT_KIND_HOST_REGISTERED: return kind;
	default: return VT_KIND_DEVICE;
	}
}

/* A free names its family, never its device, and ends only memory of that
 * family: IPC imports end only by closing, arrays by their destroy, VMM
 * handles by their release, pinned and registered host memory each by
 * their own call. */
static void model_free(const struct vt_event *event)
{
	model.events++;
	struct model_allocation *found = NULL;
	for (unsigned i = 0; i < model.live_total && !found; i++) {
		struct model_allocation *a = &model.live[i];
		bool ends = family_of(a->kind) == event->kind ||
			    (a->kind == VT_KIND_EXTERNAL && event->kind == VT_KIND_ARRAY);
		if (a->address == event->address && ends)
			found = a;
	}
	if (!found) {
		model.unknown_frees++;
		return;
	}
	struct model_slot *slot = &model.slots[found->slot];
	count_out(&slot->kinds[found->kind], found->bytes);
	if (vt_kind_is_counted(found->kind)) {
		count_out(&slot->tags[found->tag], found->bytes);
		if (found->stack)
			count_out(&slot->stacks[found->stack], found->bytes);
		slot->live -= found->bytes;
		slot->live_count--;
		slot->frees++;
	}
	model_forget(found);
}

static void level_change(struct model_counter *counter, uint64_t before, uint64_t after)
{
	counter_change(counter, before, after);
	counter->allocs += !before && after;
	counter->frees += before && !after;
	counter->bytes_allocated += after > before ? after - before : 0;
}

/* A level that changes tag or stack ends on the old one and begins on the
 * new; on the same one it is one allocation growing or shrinking. */
static void level_move(struct model_counter *counters, unsigned from, unsigned to, uint64_t before,
		       uint64_t after)
{
	if (from == to) {
		level_change(&counters[to], before, after);
		return;
	}
	level_change(&counters[from], before, 0);
	level_change(&counters[to], 0, after);
}

static void model_level(const struct vt_event *event)
{
	int index = event->device;
	struct model_slot *slot = &model.slots[index];
	model.events++;
	struct model_allocation *entry = model_find(index, event->address);
	struct model_allocation before = entry ? *entry : (struct model_allocation){0};
	uint64_t after = event->bytes;
	level_change(&slot->kinds[VT_KIND_GRAPH], before.bytes, after);
	level_move(slot->tags, before.tag, event->tag, before.bytes, after);
	level_move(slot->stacks, before.stack, event->stack, before.bytes, after);
	if (after)
		slot->stacks[event->stack].tag = event->tag;
	slot->live = slot->live - before.bytes + after;
	slot->live_count += (uint64_t)(!before.bytes && after) - (uint64_t)(before.bytes && !after);
	slot->allocs += !before.bytes && after;
	slot->frees += before.bytes && !after;
	slot->bytes_allocated += after > before.bytes ? after - before.bytes : 0;
	if (entry)
		model_forget(entry);
	if (after)
		model.live[model.live_total++] = (struct model_allocation){
			event->address, after, index, VT_KIND_GRAPH, event->tag, event->stack};
	model_after_growth(slot);
}

static void model_failure(const struct vt_event *event)
{
	model.events++;
	model.slots[slot_of(event->device, event->kind)].failures++;
}

/* A retag moves a live allocation's bytes to another tag; memory that is
 * only shown (never in the tags' totals) changes its tag alone. */
static bool model_retag(uint64_t address, uint32_t tag)
{
	for (unsigned i = 0; i < model.live_total; i++) {
		struct model_allocation *a = &model.live[i];
		if (a->address != address)
			continue;
		if (vt_kind_is_counted(a->kind)) {
			struct model_slot *slot = &model.slots[a->slot];
			counter_change(&slot->tags[a->tag], a->bytes, 0);
			counter_change(&slot->tags[tag], 0, a->bytes);
		}
		a->tag = tag;
		return true;
	}
	return false;
}

/* Addresses are unique across devices and the host, as with unified
 * addressing: the slot is in the high bits. */
static uint64_t address_for(int slot)
{
	return ((uint64_t)(slot + 1) << 40) | ((uint64_t)(1 + below(600)) << 12);
}

static uint64_t random_live_address(void)
{
	return model.live_total ? model.live[below(model.live_total)].address : address_for(0);
}

static const enum vt_kind kinds[] = {
	VT_KIND_DEVICE,   VT_KIND_DEVICE,      VT_KIND_ASYNC,       VT_KIND_MANAGED,
	VT_KIND_VMM,      VT_KIND_ARRAY,       VT_KIND_IPC_IMPORT,  VT_KIND_MULTICAST,
	VT_KIND_EXTERNAL, VT_KIND_POOL_IMPORT, VT_KIND_PINNED_HOST, VT_KIND_HOST_REGISTERED,
};

static void apply(const struct vt_event *event)
{
	now += 1 + below(3000000);
	vt_tracker_record(&tracker, event);
}

static void random_alloc(void)
{
	enum vt_kind kind = kinds[below(sizeof(kinds) / sizeof(kinds[0]))];
	int device = (int)below(DEVICES);
	struct vt_event event = {
		.op = VT_OP_ALLOC,
		.kind = kind,
		.device = vt_kind_is_host(kind) ? VT_HOST_DEVICE : device,
		.address = address_for(slot_of(device, kind)),
		.bytes = 1 + below(1u << 20),
		.api = "alloc",
		.driver_api = "alloc",
		.tag = (uint32_t)below(TAGS),
		.stack = below(STACKS),
	};
	if (model.live_total == MAX_LIVE)
		return;
	apply(&event);
	model_alloc(&event);
}

static void random_free(void)
{
	static const enum vt_kind families[] = {VT_KIND_DEVICE,     VT_KIND_ARRAY,
						VT_KIND_VMM,        VT_KIND_PINNED_HOST,
						VT_KIND_IPC_IMPORT, VT_KIND_HOST_REGISTERED};
	struct vt_event event = {
		.op = VT_OP_FREE,
		.kind = families[below(6)],
		.device = VT_HOST_DEVICE,
		.address = below(8) ? random_live_address() : address_for((int)below(SLOTS)),
		.api = "free",
		.driver_api = "free",
	};
	/* Mostly the family the allocation belongs to, so most frees land. */
	struct model_allocation *target = NULL;
	for (unsigned i = 0; i < model.live_total && !target; i++)
		if (model.live[i].address == event.address)
			target = &model.live[i];
	if (target && below(5)) {
		event.kind = family_of(target->kind);
	}
	apply(&event);
	model_free(&event);
}

static void random_duplicate(void)
{
	if (!model.live_total)
		return;
	const struct model_allocation *a = &model.live[below(model.live_total)];
	if (a->kind == VT_KIND_GRAPH)
		return;
	struct vt_event event = {
		.op = VT_OP_ALLOC,
		.kind = a->kind,
		.device = a->slot == DEVICES ? VT_HOST_DEVICE : a->slot,
		.address = a->address,
		.bytes = 1 + below(1000),
		.api = "alloc",
		.driver_api = "alloc",
		.tag = (uint32_t)below(TAGS),
		.stack = below(STACKS),
	};
	apply(&event);
	model_alloc(&event);
}

static void random_level(void)
{
	int device = (int)below(DEVICES);
	struct vt_event event = {
		.op = VT_OP_LEVEL,
		.kind = VT_KIND_GRAPH,
		.device = device,
		.address = VT_GRAPH_LEVEL_ADDRESS(device),
		.bytes = below(4) ? (uint64_t)below(64) << 21 : 0,
		.api = "graph",
		.driver_api = "graph",
		.tag = (uint32_t)below(TAGS),
		.stack = below(STACKS),
	};
	if (model.live_total == MAX_LIVE)
		return;
	apply(&event);
	model_level(&event);
}

static void random_failure(void)
{
	struct vt_event event = {
		.op = VT_OP_ALLOC_FAILED,
		.kind = VT_KIND_DEVICE,
		.device = (int)below(DEVICES),
		.bytes = 1u << 30,
		.error = below(2) ? VT_ERROR_OUT_OF_MEMORY : 1,
		.api = "alloc",
		.driver_api = "alloc",
		.tag = (uint32_t)below(TAGS),
	};
	apply(&event);
	model_failure(&event);
}

static void random_dropped(void)
{
	struct vt_event event = {
		.op = VT_OP_ALLOC,
		.kind = VT_KIND_DEVICE,
		.device = below(2) ? VT_MAX_DEVICES : -7,
		.address = address_for(0),
		.bytes = 4096,
		.api = "alloc",
		.driver_api = "alloc",
	};
	apply(&event);
	model.events++;
	model.dropped++;
}

static void random_retag(void)
{
	uint64_t address = below(8) ? random_live_address() : address_for((int)below(SLOTS));
	uint32_t tag = (uint32_t)below(TAGS);
	cr_assert_eq(vt_tracker_retag(&tracker, address, tag), model_retag(address, tag),
		     "retag of %#llx", (unsigned long long)address);
}

static void random_event(void)
{
	unsigned roll = below(100);
	if (roll < 45)
		random_alloc();
	else if (roll < 85)
		random_free();
	else if (roll < 89)
		random_duplicate();
	else if (roll < 93)
		random_level();
	else if (roll < 95)
		random_failure();
	else if (roll < 96)
		random_dropped();
	else
		random_retag();
}

static void expect_counter(const struct vt_device_stats *stats, const struct vt_counter *got,
			   const struct model_counter *want, const char *what, int index)
{
	cr_assert_eq(got->live, want->live, "%s %d live: %llu, the model %llu", what, index,
		     (unsigned long long)got->live, (unsigned long long)want->live);
	cr_assert_eq(got->peak, want->peak, "%s %d peak", what, index);
	cr_assert_eq(vt_stats_at_peak(stats, got), want->at_peak, "%s %d at peak", what, index);
	cr_assert_eq(got->allocs, want->allocs, "%s %d allocs", what, index);
	cr_assert_eq(got->frees, want->frees, "%s %d frees", what, index);
	cr_assert_eq(got->bytes_allocated, want->bytes_allocated, "%s %d bytes", what, index);
}

static const struct vt_counter *counter_or_zero(const struct vt_counter_array *array,
						uint32_t index)
{
	static const struct vt_counter zero;
	return index < array->size ? &array->items[index] : &zero;
}

static void expect_slot(const struct vt_device_stats *got, const struct model_slot *want)
{
	cr_assert_eq(got->live, want->live);
	cr_assert_eq(got->live_count, want->live_count);
	cr_assert_eq(got->peak, want->peak);
	cr_assert_eq(got->peak_event, want->peak_event);
	cr_assert_eq(got->allocs, want->allocs);
	cr_assert_eq(got->frees, want->frees);
	cr_assert_eq(got->bytes_allocated, want->bytes_allocated);
	cr_assert_eq(got->failures, want->failures);
	for (int k = 0; k < VT_KIND_COUNT; k++)
		expect_counter(got, &got->kinds[k], &want->kinds[k], "kind", k);
	for (int t = 0; t < TAGS; t++)
		expect_counter(got, counter_or_zero(&got->tags, t), &want->tags[t], "tag", t);
	for (int s = 1; s < STACKS; s++) {
		const struct vt_counter *stack = counter_or_zero(&got->stacks, s);
		expect_counter(got, stack, &want->stacks[s], "stack", s);
		cr_assert_eq(stack->tag, want->stacks[s].tag, "stack %d tag", s);
	}
}

static void expect_model(void)
{
	struct vt_snapshot snapshot;
	vt_tracker_snapshot(&tracker, &snapshot);
	for (int d = 0; d < DEVICES; d++)
		expect_slot(&snapshot.devices[d], &model.slots[d]);
	expect_slot(&snapshot.host, &model.slots[DEVICES]);
	cr_assert_eq(snapshot.counters.events, model.events);
	cr_assert_eq(snapshot.counters.deduplicated, model.deduplicated);
	cr_assert_eq(snapshot.counters.unknown_frees, model.unknown_frees);
	cr_assert_eq(snapshot.counters.dropped, model.dropped);
	vt_snapshot_free(&snapshot);
}

static void run(uint64_t seed)
{
	memset(&model, 0, sizeof(model));
	rng = seed;
	now = 1000;
	struct vt_tracker_options options = {
		.oom_snapshots = 2, .snapshot_top = 3, .clock = fake_clock};
	vt_tracker_init(&tracker, &options);
	for (int i = 1; i <= EVENTS; i++) {
		random_event();
		if (i % CHECK_EVERY == 0)
			expect_model();
	}
	expect_model();
	vt_tracker_destroy(&tracker);
}

Test(tracker_model, agrees_on_random_events_seed_1)
{
	run(0x9e3779b97f4a7c15ull);
}

Test(tracker_model, agrees_on_random_events_seed_2)
{
	run(0xd1b54a32d192ed03ull);
}

Test(tracker_model, agrees_on_random_events_seed_3)
{
	run(0x2545f4914f6cdd1dull);
}
