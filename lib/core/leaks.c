#include "leaks.h"

#include <stdlib.h>
#include <string.h>

/* Open addressing on the packed (device, stack, tag) key. */
struct grouping {
	struct vt_leak *slots;
	uint64_t capacity;
	uint64_t count;
	bool failed;
};

/* A stack id takes 32 bits, a tag 20 (VT_MAX_TAGS), a device 8 above them. */
static uint64_t key_of(int device, uint32_t stack, uint32_t tag)
{
	return ((uint64_t)(uint8_t)(device + 1) << 52) | ((uint64_t)tag << 32) | stack;
}

static uint64_t slot_of(uint64_t key, uint64_t capacity)
{
	return (key * 0x9E3779B97F4A7C15ull >> 17) & (capacity - 1);
}

static uint64_t find(const struct grouping *g, int device, uint32_t stack, uint32_t tag)
{
	uint64_t key = key_of(device, stack, tag);
	uint64_t i = slot_of(key, g->capacity);
	while (g->slots[i].count &&
	       key_of(g->slots[i].device, g->slots[i].stack, g->slots[i].tag) != key)
		i = (i + 1) & (g->capacity - 1);
	return i;
}

static bool grow(struct grouping *g)
{
	struct grouping bigger = {.capacity = g->capacity ? g->capacity * 2 : 1024};
	bigger.slots = calloc(bigger.capacity, sizeof(*bigger.slots));
	if (!bigger.slots)
		return false;
	for (uint64_t i = 0; i < g->capacity; i++)
		if (g->slots[i].count)
			bigger.slots[find(&bigger, g->slots[i].device, g->slots[i].stack,
					  g->slots[i].tag)] = g->slots[i];
	bigger.count = g->count;
	free(g->slots);
	*g = bigger;
	return true;
}

static void add(const struct vt_allocation *allocation, void *context)
{
	struct grouping *g = context;
	/* What the graphs' pool keeps reserved is the driver's, not a leak of
	 * the program: it is shown as graph memory not trimmed. Memory only
	 * shown (an import left open, pages left registered) is another's or
	 * the program's own, in no live total, so in no leak either. */
	if (g->failed || allocation->kind == VT_KIND_GRAPH ||
	    !vt_kind_is_counted((enum vt_kind)allocation->kind))
		return;
	if ((g->count + 1) * 2 > g->capacity && !grow(g)) {
		g->failed = true;
		return;
	}
	struct vt_leak *leak =
		&g->slots[find(g, allocation->device, allocation->stack, allocation->tag)];
	if (!leak->count) {
		*leak = (struct vt_leak){allocation->device, allocation->stack, allocation->tag, 0,
					 0};
		g->count++;
	}
	leak->count++;
	leak->bytes = vt_add_bytes(leak->bytes, allocation->bytes);
}

static int larger_first(const void *a, const void *b)
{
	const struct vt_leak *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->device != y->device)
		return x->device - y->device;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return (int)x->tag - (int)y->tag;
}

/* Sorts the groups gathered into out. */
static bool finish(struct grouping g, struct vt_leaks *out)
{
	if (g.failed) {
		free(g.slots);
		return false;
	}
	uint64_t kept = 0;
	for (uint64_t i = 0; i < g.capacity; i++) {
		if (!g.slots[i].count)
			continue;
		out->allocations += g.slots[i].count;
		out->bytes = vt_add_bytes(out->bytes, g.slots[i].bytes);
		g.slots[kept++] = g.slots[i];
	}
	qsort(g.slots, kept, sizeof(*g.slots), larger_first);
	out->groups = g.slots;
	out->group_count = kept;
	return true;
}

bool vt_leaks_collect(struct vt_tracker *tracker, struct vt_leaks *out)
{
	struct grouping g = {0};
	memset(out, 0, sizeof(*out));
	vt_tracker_for_each_live(tracker, add, &g);
	return finish(g, out);
}

bool vt_leaks_snapshot(struct vt_tracker *tracker, struct vt_snapshot *snapshot,
		       struct vt_leaks *out)
{
	struct grouping g = {0};
	memset(out, 0, sizeof(*out));
	vt_tracker_snapshot_visiting(tracker, snapshot, add, &g);
	return finish(g, out);
}

void vt_leaks_free(struct vt_leaks *leaks)
{
	free(leaks->groups);
	memset(leaks, 0, sizeof(*leaks));
}
