/* Which tags and stacks a report lists, and in what order: shared by the
 * JSON report and the summary so both always agree. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>

#include "../core/tags.h"
#include "../core/top.h"
#include "report.h"

static int by_tag_weight(const void *a, const void *b, void *context)
{
	const struct vt_device_stats *stats = context;
	const struct vt_counter *x = &stats->tags.items[*(const uint16_t *)a];
	const struct vt_counter *y = &stats->tags.items[*(const uint16_t *)b];
	uint64_t xa = vt_stats_at_peak(stats, x), ya = vt_stats_at_peak(stats, y);
	if (xa != ya)
		return xa < ya ? 1 : -1;
	if (x->peak != y->peak)
		return x->peak < y->peak ? 1 : -1;
	return *(const uint16_t *)a - *(const uint16_t *)b;
}

uint32_t vt_report_tag_order(const struct vt_device_stats *stats, uint16_t *order)
{
	uint32_t count = 0;
	for (uint32_t t = 0; t < stats->tags.size && t < VT_MAX_TAGS; t++)
		if (stats->tags.items[t].allocs || stats->tags.items[t].peak)
			order[count++] = (uint16_t)t; /* re-tagging gives bytes, not allocations */
	qsort_r(order, count, sizeof(*order), by_tag_weight, (void *)stats);
	return count;
}

static uint64_t stack_at_peak(uint32_t index, const void *context)
{
	const struct vt_device_stats *stats = context;
	return vt_stats_at_peak(stats, &stats->stacks.items[index]);
}

uint32_t vt_report_top_stacks(const struct vt_device_stats *stats, unsigned top, uint32_t *order)
{
	return vt_top_indices(stack_at_peak, stats, stats->stacks.size, top, order);
}
