#include "unwind_cache.h"

#include <stdatomic.h>
#include <string.h>

#define SLOTS 4096 /* distinct call sites of a large program's hot paths */

struct slot {
	_Atomic uint32_t sequence; /* odd while a writer holds the slot */
	_Atomic uint32_t generation;
	_Atomic uintptr_t pc;
	_Atomic uint64_t rule;
};

static struct slot slots[SLOTS];

static struct slot *slot_for(uintptr_t pc)
{
	return &slots[(pc * 0x9e3779b97f4a7c15ull) >> (64 - 12)];
}
_Static_assert(SLOTS == 1 << 12, "the hash gives 12 bits");

static uint64_t pack(struct vt_unwind_rule rule)
{
	uint64_t word;
	memcpy(&word, &rule, sizeof(word));
	return word;
}

bool vt_unwind_cache_get(uintptr_t pc, uint32_t generation, struct vt_unwind_rule *rule)
{
	struct slot *slot = slot_for(pc);
	uint32_t before = atomic_load_explicit(&slot->sequence, memory_order_acquire);
	uintptr_t key = atomic_load_explicit(&slot->pc, memory_order_relaxed);
	uint32_t made_in = atomic_load_explicit(&slot->generation, memory_order_relaxed);
	uint64_t word = atomic_load_explicit(&slot->rule, memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	uint32_t after = atomic_load_explicit(&slot->sequence, memory_order_relaxed);
	if (key != pc || made_in != generation || before != after || (before & 1))
		return false;
	memcpy(rule, &word, sizeof(*rule));
	return true;
}

void vt_unwind_cache_put(uintptr_t pc, uint32_t generation, struct vt_unwind_rule rule)
{
	struct slot *slot = slot_for(pc);
	uint32_t sequence = atomic_load_explicit(&slot->sequence, memory_order_relaxed);
	if ((sequence & 1) ||
	    !atomic_compare_exchange_strong_explicit(&slot->sequence, &sequence, sequence + 1,
						     memory_order_acquire, memory_order_relaxed))
		return;
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&slot->pc, pc, memory_order_relaxed);
	atomic_store_explicit(&slot->generation, generation, memory_order_relaxed);
	atomic_store_explicit(&slot->rule, pack(rule), memory_order_relaxed);
	atomic_store_explicit(&slot->sequence, sequence + 2, memory_order_release);
}
