#include "ledger.h"
#include "memory.h"

#include <stdlib.h>
#include <string.h>

#define INITIAL_CAPACITY 64

/* calloc, or a failing stand-in with which the tests run out of memory. */
static void *(*table_calloc)(size_t, size_t) = vt_mem_calloc;

void vt_ledger_set_calloc(void *(*allocate)(size_t, size_t))
{
	table_calloc = allocate ? allocate : vt_mem_calloc;
}

/* Fibonacci hashing: addresses are aligned, so the low bits say little. */
static uint64_t mix(uint64_t address)
{
	return (address >> 4) * 0x9E3779B97F4A7C15ull;
}

static struct vt_ledger_shard *shard_for(struct vt_ledger *ledger, uint64_t address)
{
	return &ledger->shards[mix(address) >> 58];
}

static uint64_t home(const struct vt_ledger_shard *shard, uint64_t address)
{
	/* Bits below the shard selector pick the slot. */
	return (mix(address) >> 20) & (shard->capacity - 1);
}

void vt_ledger_init(struct vt_ledger *ledger)
{
	memset(ledger, 0, sizeof(*ledger));
}

void vt_ledger_destroy(struct vt_ledger *ledger)
{
	for (int i = 0; i < VT_LEDGER_SHARDS; i++) {
		free(ledger->shards[i].slots);
	}
	memset(ledger, 0, sizeof(*ledger));
}

/* The slot holding address, or the empty slot where it would go. */
static uint64_t probe(const struct vt_ledger_shard *shard, uint64_t address)
{
	uint64_t mask = shard->capacity - 1;
	uint64_t i = home(shard, address);
	while (shard->slots[i].address && shard->slots[i].address != address)
		i = (i + 1) & mask;
	return i;
}

static bool grow(struct vt_ledger_shard *shard)
{
	uint64_t capacity = shard->capacity ? shard->capacity * 2 : INITIAL_CAPACITY;
	struct vt_allocation *slots = table_calloc(capacity, sizeof(*slots));
	if (!slots)
		return false;
	struct vt_ledger_shard grown = {.slots = slots, .capacity = capacity};
	for (uint64_t i = 0; i < shard->capacity; i++)
		if (shard->slots[i].address)
			grown.slots[probe(&grown, shard->slots[i].address)] = shard->slots[i];
	vt_mem_free(shard->slots);
	shard->slots = slots;
	shard->capacity = capacity;
	return true;
}

static enum vt_ledger_result insert_into(struct vt_ledger_shard *shard,
					 const struct vt_allocation *allocation)
{
	uint64_t i = probe(shard, allocation->address);
	if (shard->slots[i].address)
		return VT_LEDGER_DUPLICATE;
	shard->slots[i] = *allocation;
	shard->count++;
	return VT_LEDGER_INSERTED;
}

/* Out of line: a shard grows rarely, and the common path then needs no
 * stack frame. */
static __attribute__((noinline)) enum vt_ledger_result
grow_and_insert(struct vt_ledger_shard *shard, const struct vt_allocation *allocation)
{
	if (!grow(shard))
		return VT_LEDGER_NO_MEMORY;
	return insert_into(shard, allocation);
}

enum vt_ledger_result vt_ledger_insert(struct vt_ledger *ledger,
				       const struct vt_allocation *allocation)
{
	struct vt_ledger_shard *shard = shard_for(ledger, allocation->address);
	if ((shard->count + 1) * 4 > shard->capacity * 3)
		return grow_and_insert(shard, allocation);
	return insert_into(shard, allocation);
}

/* Backward-shift deletion keeps every probe chain unbroken, no tombstones. */
static void delete_at(struct vt_ledger_shard *shard, uint64_t hole)
{
	uint64_t mask = shard->capacity - 1;
	for (uint64_t i = (hole + 1) & mask; shard->slots[i].address; i = (i + 1) & mask) {
		uint64_t want = home(shard, shard->slots[i].address);
		/* Move the entry back when the hole lies on its way from home. */
		if (((i - want) & mask) >= ((i - hole) & mask)) {
			shard->slots[hole] = shard->slots[i];
			hole = i;
		}
	}
	shard->slots[hole].address = 0;
	shard->count--;
}

/* Shrinks a shard that has become mostly empty, so memory follows use.
 * Out of line, as growing is. */
static __attribute__((noinline)) void shrink(struct vt_ledger_shard *shard)
{
	struct vt_allocation *slots = vt_mem_calloc(shard->capacity / 2, sizeof(*slots));
	if (!slots)
		return;
	struct vt_ledger_shard smaller = {.slots = slots, .capacity = shard->capacity / 2};
	for (uint64_t i = 0; i < shard->capacity; i++)
		if (shard->slots[i].address)
			smaller.slots[probe(&smaller, shard->slots[i].address)] = shard->slots[i];
	vt_mem_free(shard->slots);
	shard->slots = slots;
	shard->capacity = smaller.capacity;
}

struct vt_allocation *vt_ledger_entry(struct vt_ledger *ledger, uint64_t address)
{
	struct vt_ledger_shard *shard = shard_for(ledger, address);
	if (!shard->capacity || !address)
		return NULL;
	uint64_t i = probe(shard, address);
	return shard->slots[i].address ? &shard->slots[i] : NULL;
}

void vt_ledger_erase(struct vt_ledger *ledger, struct vt_allocation *entry)
{
	struct vt_ledger_shard *shard = shard_for(ledger, entry->address);
	delete_at(shard, (uint64_t)(entry - shard->slots));
	if (shard->capacity > INITIAL_CAPACITY && shard->count * 4 < shard->capacity)
		shrink(shard);
}

uint64_t vt_ledger_count(struct vt_ledger *ledger)
{
	uint64_t count = 0;
	for (int s = 0; s < VT_LEDGER_SHARDS; s++)
		count += ledger->shards[s].count;
	return count;
}

void vt_ledger_for_each(struct vt_ledger *ledger,
			void (*visit)(const struct vt_allocation *, void *), void *context)
{
	for (int s = 0; s < VT_LEDGER_SHARDS; s++) {
		const struct vt_ledger_shard *shard = &ledger->shards[s];
		for (uint64_t i = 0; i < shard->capacity; i++)
			if (shard->slots[i].address)
				visit(&shard->slots[i], context);
	}
}
