/* The report: the JSON document (schema vramtrace/1, docs/report-format.md)
 * and the text summary, both from one snapshot. */
#pragma once

#include <stdio.h>

#include "../core/tracker.h"
#include "../sources/driver_query.h"
#include "run.h"

#define VT_REPORT_SCHEMA "vramtrace/1"

struct vt_report {
	const struct vt_run *run;
	const struct vt_snapshot *snapshot;
	const struct vt_device_info *devices; /* VT_MAX_DEVICES entries */
};

void vt_report_write_json(const struct vt_report *report, FILE *out);
/* Every line starts "vramtrace: ", so it cannot be mistaken for the
 * program's own output. */
void vt_report_write_summary(const struct vt_report *report, FILE *out);
