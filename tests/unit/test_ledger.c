#include <criterion/criterion.h>

#include "ledger.h"

static struct vt_allocation allocation(uint64_t address, uint64_t bytes, int device)
{
	return (struct vt_allocation){address, bytes, device, VT_KIND_DEVICE};
}

static void count_bytes(const struct vt_allocation *a, void *context)
{
	*(uint64_t *)context += a->bytes;
}

Test(ledger, insert_find_remove)
{
	struct vt_ledger ledger = {0};
	bool oom;
	struct vt_allocation a = allocation(0x1000, 100, 0), out;
	cr_assert(vt_ledger_insert(&ledger, &a, &oom));
	cr_assert_not(oom);
	cr_assert(vt_ledger_find(&ledger, 0x1000, &out));
	cr_assert_eq(out.bytes, 100);
	cr_assert_not(vt_ledger_find(&ledger, 0x2000, &out));
	cr_assert(vt_ledger_remove(&ledger, 0x1000, &out));
	cr_assert_eq(out.device, 0);
	cr_assert_eq(ledger.count, 0);
	cr_assert_not(vt_ledger_remove(&ledger, 0x1000, &out), "removed twice");
}

Test(ledger, a_live_address_is_refused_not_counted_twice)
{
	struct vt_ledger ledger = {0};
	bool oom;
	struct vt_allocation first = allocation(0x1000, 100, 0), second = allocation(0x1000, 50, 1);
	cr_assert(vt_ledger_insert(&ledger, &first, &oom));
	cr_assert_not(vt_ledger_insert(&ledger, &second, &oom));
	cr_assert_not(oom);
	struct vt_allocation out;
	cr_assert(vt_ledger_find(&ledger, 0x1000, &out));
	cr_assert_eq(out.bytes, 100, "the first (outermost) record wins");
	vt_ledger_clear(&ledger);
}

Test(ledger, many_entries_and_iteration)
{
	struct vt_ledger ledger = {0};
	bool oom;
	for (uint64_t i = 1; i <= 10000; i++) {
		struct vt_allocation a = allocation(i * 4096, i, (int)(i % 4));
		cr_assert(vt_ledger_insert(&ledger, &a, &oom));
	}
	for (uint64_t i = 2; i <= 10000; i += 2) {
		struct vt_allocation out;
		cr_assert(vt_ledger_remove(&ledger, i * 4096, &out));
	}
	uint64_t total = 0;
	vt_ledger_for_each(&ledger, count_bytes, &total);
	cr_assert_eq(ledger.count, 5000);
	cr_assert_eq(total, 25000000ull, "sum of odd 1..9999");
	vt_ledger_clear(&ledger);
	cr_assert_eq(ledger.count, 0);
}
