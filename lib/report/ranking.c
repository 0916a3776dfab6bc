/* Which tags and stacks a report lists, and in what order: shared by the
 * JSON report and the summary so both always agree. */
#include <stdbool.h>

#include "../core/tags.h"
#include "../core/top.h"
#include "report.h"

/* Whether tag a goes before tag b: more bytes at the peak, then a higher
 * own peak, then the smaller id. */
static bool before(const struct vt_device_stats *stats, uint32_t a, uint32_t b)
{
	const struct vt_counter *x = &stats->tags.items[a], *y = &stats->tags.items[b];
	uint64_t xa = vt_stats_at_peak(stats, x), ya = vt_stats_at_peak(stats, y);
	if (xa != ya)
		return xa > ya;
	if (x->peak != y->peak)
		return x->peak > y->peak;
	return a < b;
}

/* Sifts order[at] down a heap whose root is the tag that goes last. */
static void sift_down(const struct vt_device_stats *stats, uint32_t *order, uint32_t size,
		      uint32_t at)
{
	for (;;) {
		uint32_t last = at, left = 2 * at + 1, right = left + 1;
		if (left < size && before(stats, order[last], order[left]))
			last = left;
		if (right < size && before(stats, order[last], order[right]))
			last = right;
		if (last == at)
			return;
		uint32_t swap = order[at];
		order[at] = order[last];
		order[last] = swap;
		at = last;
	}
}

/* A heap sort: a program may name a million tags, and it allocates
 * nothing, which the report written from a signal handler needs. */
uint32_t vt_report_tag_order(const struct vt_device_stats *stats, uint32_t *order)
{
	uint32_t count = 0;
	for (uint32_t t = 0; t < stats->tags.size && t < VT_MAX_TAGS; t++) {
		const struct vt_counter *tag = &stats->tags.items[t];
		if (tag->allocs || tag->peak) /* re-tagging gives bytes, not allocations */
			order[count++] = t;
	}
	for (uint32_t i = count / 2; i-- > 0;)
		sift_down(stats, order, count, i);
	for (uint32_t size = count; size > 1; size--) {
		uint32_t swap = order[0];
		order[0] = order[size - 1];
		order[size - 1] = swap;
		sift_down(stats, order, size - 1, 0);
	}
	return count;
}

static uint64_t stack_at_peak(uint32_t index, const void *context)
{
	const struct vt_device_stats *stats = context;
	return vt_stats_at_peak(stats, &stats->stacks.items[index]);
}

uint32_t vt_report_top_stacks(const struct vt_device_stats *stats, unsigned top, uint32_t *order,
			      struct vt_top_entry *scratch)
{
	return vt_top_indices(stack_at_peak, stats, stats->stacks.size, top, scratch, order);
}
