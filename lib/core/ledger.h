/* One device's live allocations, keyed by address: the tracker keeps one
 * ledger per device, behind that device's lock, so an event takes a single
 * lock. It does no locking of its own.
 *
 * Open addressing in 64 shards, so that growing moves a 64th of the table
 * at a time, never the whole of it in one event. An entry is 24 bytes and
 * a shard grows past 3/4 full and shrinks below 1/4 (the gap keeps it from
 * flapping), so a live allocation costs at most 96 bytes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

/* Packed to 24 bytes: a tag id takes 20 bits (VT_MAX_TAGS), a device 7
 * (ordinals below VT_MAX_DEVICES, and the host's -1), a kind 5. */
struct vt_allocation {
	uint64_t address; /* 0 marks an empty slot; CUDA never returns 0 */
	uint64_t bytes;
	uint32_t stack;
	uint32_t tag : 20;
	int32_t device : 7; /* CUDA ordinal, or VT_HOST_DEVICE */
	uint32_t kind : 5;
};

_Static_assert(sizeof(struct vt_allocation) == 24, "a live allocation's entry is 24 bytes");
_Static_assert(VT_KIND_COUNT <= 32, "a kind fits in 5 bits");

#define VT_LEDGER_SHARDS 64

struct vt_ledger_shard {
	struct vt_allocation *slots;
	uint64_t capacity; /* a power of two, or 0 before the first insert */
	uint64_t count;
};

struct vt_ledger {
	struct vt_ledger_shard shards[VT_LEDGER_SHARDS];
};

enum vt_ledger_result {
	VT_LEDGER_INSERTED,
	VT_LEDGER_DUPLICATE, /* the address is live already: keep the first */
	VT_LEDGER_NO_MEMORY, /* the table could not grow */
};

void vt_ledger_init(struct vt_ledger *ledger);
void vt_ledger_destroy(struct vt_ledger *ledger);
enum vt_ledger_result vt_ledger_insert(struct vt_ledger *ledger,
				       const struct vt_allocation *allocation);
/* The live entry at address, or NULL. It may be changed in place (its tag)
 * and stays valid until the ledger next changes. */
struct vt_allocation *vt_ledger_entry(struct vt_ledger *ledger, uint64_t address);
/* Removes an entry vt_ledger_entry gave. */
void vt_ledger_erase(struct vt_ledger *ledger, struct vt_allocation *entry);
uint64_t vt_ledger_count(struct vt_ledger *ledger);
/* Visits every live allocation. */
void vt_ledger_for_each(struct vt_ledger *ledger,
			void (*visit)(const struct vt_allocation *, void *), void *context);
/* Replaces the allocator of the tables (NULL restores calloc): the tests
 * use it to run out of host memory. */
void vt_ledger_set_calloc(void *(*allocate)(size_t, size_t));
