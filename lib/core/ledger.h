/* The live allocations, keyed by address. CUDA's unified address space makes
 * an address unique across devices, and a free names only the address. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "event.h"

struct vt_allocation {
	uint64_t address;
	uint64_t bytes;
	int device;
	enum vt_kind kind;
};

struct vt_ledger_entry;

struct vt_ledger {
	struct vt_ledger_entry *head;
	uint64_t count;
};

/* Adds an allocation. Returns false when the address is already live (the
 * caller counts it as de-duplicated) or no host memory is left (*oom set). */
bool vt_ledger_insert(struct vt_ledger *ledger, const struct vt_allocation *allocation, bool *oom);
/* Removes the allocation at address into *out; false when it is not live. */
bool vt_ledger_remove(struct vt_ledger *ledger, uint64_t address, struct vt_allocation *out);
bool vt_ledger_find(const struct vt_ledger *ledger, uint64_t address, struct vt_allocation *out);
void vt_ledger_for_each(const struct vt_ledger *ledger,
			void (*visit)(const struct vt_allocation *, void *), void *context);
void vt_ledger_clear(struct vt_ledger *ledger);
