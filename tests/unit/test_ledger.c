#include <criterion/criterion.h>

#include "ledger.h"

static struct vt_ledger ledger;

static void setup(void)
{
	vt_ledger_init(&ledger);
}

static void teardown(void)
{
	vt_ledger_destroy(&ledger);
}

TestSuite(ledger, .init = setup, .fini = teardown);

static struct vt_allocation allocation(uint64_t address, uint64_t bytes, int device)
{
	return (struct vt_allocation){address, bytes, 7, 3, (int8_t)device, VT_KIND_DEVICE};
}

static void count_bytes(const struct vt_allocation *a, void *context)
{
	*(uint64_t *)context += a->bytes;
}

/* Removes the entry at address into *out; false when none is live. */
static bool take(uint64_t address, struct vt_allocation *out)
{
	struct vt_allocation *entry = vt_ledger_entry(&ledger, address);
	if (!entry)
		return false;
	*out = *entry;
	vt_ledger_erase(&ledger, entry);
	return true;
}

Test(ledger, insert_find_erase)
{
	struct vt_allocation a = allocation(0x1000, 100, 0), out;
	cr_assert_eq(vt_ledger_insert(&ledger, &a), VT_LEDGER_INSERTED);
	const struct vt_allocation *entry = vt_ledger_entry(&ledger, 0x1000);
	cr_assert(entry);
	cr_assert_eq(entry->bytes, 100);
	cr_assert_eq(entry->stack, 7);
	cr_assert_eq(entry->tag, 3);
	cr_assert_null(vt_ledger_entry(&ledger, 0x2000));
	cr_assert(take(0x1000, &out));
	cr_assert_eq(out.device, 0);
	cr_assert_eq(vt_ledger_count(&ledger), 0);
	cr_assert_not(take(0x1000, &out), "removed twice");
	cr_assert_null(vt_ledger_entry(&ledger, 0));
}

Test(ledger, a_live_address_is_refused_not_counted_twice)
{
	struct vt_allocation first = allocation(0x1000, 100, 0), second = allocation(0x1000, 50, 1);
	cr_assert_eq(vt_ledger_insert(&ledger, &first), VT_LEDGER_INSERTED);
	cr_assert_eq(vt_ledger_insert(&ledger, &second), VT_LEDGER_DUPLICATE);
	cr_assert_eq(vt_ledger_entry(&ledger, 0x1000)->bytes, 100,
		     "the first (outermost) record wins");
}

Test(ledger, an_entry_changes_in_place)
{
	struct vt_allocation a = allocation(0x1000, 100, 0);
	vt_ledger_insert(&ledger, &a);
	vt_ledger_entry(&ledger, 0x1000)->tag = 9;
	cr_assert_eq(vt_ledger_entry(&ledger, 0x1000)->tag, 9);
	cr_assert_eq(vt_ledger_count(&ledger), 1);
}

/* Growth, shrinking and backward-shift deletion keep every entry findable. */
Test(ledger, many_entries_grow_shrink_and_iterate)
{
	for (uint64_t i = 1; i <= 100000; i++) {
		struct vt_allocation a = allocation(i * 4096, i, (int)(i % 4));
		cr_assert_eq(vt_ledger_insert(&ledger, &a), VT_LEDGER_INSERTED);
	}
	for (uint64_t i = 2; i <= 100000; i += 2) {
		struct vt_allocation out;
		cr_assert(take(i * 4096, &out), "%llu", (unsigned long long)i);
		cr_assert_eq(out.bytes, i);
	}
	uint64_t total = 0;
	vt_ledger_for_each(&ledger, count_bytes, &total);
	cr_assert_eq(vt_ledger_count(&ledger), 50000);
	cr_assert_eq(total, 2500000000ull, "sum of odd 1..99999");
	for (uint64_t i = 1; i <= 100000; i += 2) {
		struct vt_allocation out;
		cr_assert(take(i * 4096, &out));
		cr_assert_eq(out.bytes, i);
	}
	cr_assert_eq(vt_ledger_count(&ledger), 0);
}

/* At most 96 bytes of table per live allocation, once it is large. */
Test(ledger, memory_per_live_allocation)
{
	const uint64_t live = 1000000;
	for (uint64_t i = 1; i <= live; i++) {
		struct vt_allocation a = allocation(i * 512, 1, 0);
		vt_ledger_insert(&ledger, &a);
	}
	uint64_t slots = 0;
	for (int s = 0; s < VT_LEDGER_SHARDS; s++)
		slots += ledger.shards[s].capacity;
	double per_allocation = (double)(slots * sizeof(struct vt_allocation)) / (double)live;
	cr_assert_leq(per_allocation, 96.0, "%.1f bytes per allocation", per_allocation);
	cr_assert_eq(sizeof(struct vt_allocation), 24);
}
