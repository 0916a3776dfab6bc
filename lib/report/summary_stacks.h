/* The summary's listing of stacks (summary_stacks.c), and the ranks its
 * other lines refer to. */
#pragma once

#include <stdint.h>
#include <stdio.h>

#include "report.h"

#define VT_SUMMARY_ROW_TEXT 6000

/* One row: the stacks at one place with one tag. */
struct vt_summary_row {
	uint32_t first; /* the member with the most bytes at the peak */
	uint32_t members;
	uint64_t bytes; /* at the peak */
	uint64_t place;
	uint32_t tag;
	char text[VT_SUMMARY_ROW_TEXT];
};

struct vt_summary_rows {
	struct vt_summary_row *rows; /* the caller frees */
	size_t count;                /* the rows shown, ranked from 1 */
};

/* Writes the top stacks of stats, and what they leave out of the peak. */
void vt_summary_stacks(FILE *out, const struct vt_report *report,
		       const struct vt_device_stats *stats, struct vt_summary_rows *rows);
/* The rank of the shown row holding stack with tag, 0 for none. */
size_t vt_summary_rank(const struct vt_report *report, const struct vt_summary_rows *rows,
		       uint32_t stack, uint32_t tag);
