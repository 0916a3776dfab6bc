/* Which tags and stacks a report lists, and in what order: shared by the
 * JSON report and the summary so both always agree. */
#include <stdbool.h>

#include "../core/tags.h"
#include "../core/top.h"
#include "report.h"

/* Whether tag a goes before tag b: more bytes at the peak, then a higher
 * own peak, then the smaller id. */
static bool before(const struct vt_device_stats *stats, uint16_t a, uint16_t b)
{
	const struct vt_counter *x = &stats->tags.items[a], *y = &stats->tags.items[b];
	uint64_t xa = vt_stats_at_peak(stats, x), ya = vt_stats_at_peak(stats, y);
	if (xa != ya)
		return xa > ya;
	if (x->peak != y->peak)
		return x->peak > y->peak;
	return a < b;
}

/* An insertion sort: tags are few, and it allocates nothing, which the
 * report written from a signal handler needs. */
uint32_t vt_report_tag_order(const struct vt_device_stats *stats, uint16_t *order)
{
	uint32_t count = 0;
	for (uint32_t t = 0; t < stats->tags.size && t < VT_MAX_TAGS; t++) {
		const struct vt_counter *tag = &stats->tags.items[t];
		if (!tag->allocs && !tag->peak) /* re-tagging gives bytes, not allocations */
			continue;
		uint32_t at = count++;
		while (at > 0 && before(stats, (uint16_t)t, order[at - 1])) {
			order[at] = order[at - 1];
			at--;
		}
		order[at] = (uint16_t)t;
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
