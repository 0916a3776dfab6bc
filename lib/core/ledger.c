#include "ledger.h"

#include <stdlib.h>

/* uthash exits the process when its bucket table cannot grow; a tracer must
 * not, so it reports the failure instead. Callers hold the tracker lock. */
static bool table_grow_failed;
#define HASH_NONFATAL_OOM            1
#define uthash_nonfatal_oom(element) (table_grow_failed = true)
#include <uthash.h>

struct vt_ledger_entry {
	struct vt_allocation allocation;
	UT_hash_handle hh;
};

static struct vt_ledger_entry *find_entry(const struct vt_ledger *ledger, uint64_t address)
{
	struct vt_ledger_entry *entry = NULL;
	HASH_FIND(hh, ledger->head, &address, sizeof(address), entry);
	return entry;
}

bool vt_ledger_insert(struct vt_ledger *ledger, const struct vt_allocation *allocation, bool *oom)
{
	*oom = false;
	if (find_entry(ledger, allocation->address))
		return false;
	struct vt_ledger_entry *entry = malloc(sizeof(*entry));
	if (!entry) {
		*oom = true;
		return false;
	}
	entry->allocation = *allocation;
	table_grow_failed = false;
	HASH_ADD(hh, ledger->head, allocation.address, sizeof(entry->allocation.address), entry);
	if (table_grow_failed) {
		free(entry);
		*oom = true;
		return false;
	}
	ledger->count++;
	return true;
}

bool vt_ledger_remove(struct vt_ledger *ledger, uint64_t address, struct vt_allocation *out)
{
	struct vt_ledger_entry *entry = find_entry(ledger, address);
	if (!entry)
		return false;
	*out = entry->allocation;
	HASH_DEL(ledger->head, entry);
	free(entry);
	ledger->count--;
	return true;
}

bool vt_ledger_find(const struct vt_ledger *ledger, uint64_t address, struct vt_allocation *out)
{
	struct vt_ledger_entry *entry = find_entry(ledger, address);
	if (!entry)
		return false;
	*out = entry->allocation;
	return true;
}

void vt_ledger_for_each(const struct vt_ledger *ledger,
			void (*visit)(const struct vt_allocation *, void *), void *context)
{
	for (struct vt_ledger_entry *entry = ledger->head; entry; entry = entry->hh.next)
		visit(&entry->allocation, context);
}

void vt_ledger_clear(struct vt_ledger *ledger)
{
	struct vt_ledger_entry *entry, *tmp;
	HASH_ITER (hh, ledger->head, entry, tmp) {
		HASH_DEL(ledger->head, entry);
		free(entry);
	}
	ledger->count = 0;
}
