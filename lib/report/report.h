/* The report: the JSON document (schema vramtrace/1, docs/report-format.md)
 * and the text summary, both from one snapshot. */
#pragma once

#include <stdio.h>

#include "../core/leaks.h"
#include "../core/tracker.h"
#include "../sources/driver_query.h"
#include "run.h"
#include "symbolize.h"

#define VT_REPORT_SCHEMA "vramtrace/1"

struct vt_report {
	const struct vt_run *run;
	const struct vt_snapshot *snapshot;
	const struct vt_device_info *devices; /* VT_MAX_DEVICES entries */
	const struct vt_leaks *leaks;
	unsigned top; /* stacks and leak groups listed per device */
	struct vt_symbolizer *symbolizer;
};

/* The tags of stats that saw allocations, by bytes at the peak, then own
 * peak; returns how many were written to order (VT_MAX_TAGS entries). */
uint32_t vt_report_tag_order(const struct vt_device_stats *stats, uint16_t *order);
/* The top stacks of stats by bytes at the peak; returns how many. */
uint32_t vt_report_top_stacks(const struct vt_device_stats *stats, unsigned top, uint32_t *order);

void vt_report_write_json(const struct vt_report *report, FILE *out);
/* Every line starts "vramtrace: ", so it cannot be mistaken for the
 * program's own output. */
void vt_report_write_summary(const struct vt_report *report, FILE *out);
