/* The lines that the exit summary (summary.c) and `vramtrace report
 * --format text` (tools/format_text.c) both show, written once, so the two
 * can never disagree on a figure both show: the summary is the text format
 * with fewer rows. Each line starts with prefix ("vramtrace: " for the
 * summary, "" for the tool). Figures come as plain numbers: the library
 * passes its snapshot's, the tool its report model's. Nothing here
 * allocates or opens anything, so the summary may use it at exit. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* text with what a terminal would obey escaped (\n, \t, \xNN): control
 * characters, C1 controls and bytes that are not UTF-8; other characters
 * as they are. */
void vt_text_safe(FILE *out, const char *text);
/* The same into out, as many whole escaped characters as fit in size - 1
 * bytes. */
void vt_text_safe_copy(char *out, size_t size, const char *text);
/* bytes as "1.50 GiB", "-1.50 GiB" below zero, into buf. */
const char *vt_text_size(int64_t bytes, char *buf, unsigned size);

/* "peak 1.50 GiB (1610612736 bytes) at 0.012 s by cudaMalloc\n" */
void vt_text_peak(FILE *out, const char *prefix, int64_t bytes, int64_t at_ns, const char *api);
/* A kind's or tag's row: its bytes at the owner's peak, their share of
 * it, its own peak and how many it made of what is counted ("allocation";
 * for graph memory, whose reservation the driver makes, the program's
 * "allocation node"s). */
void vt_text_counter_row(FILE *out, const char *prefix, const char *name, int64_t at_peak,
			 int64_t owner_peak, int64_t own_peak, int64_t count, const char *counted);
void vt_text_contexts(FILE *out, const char *prefix, int64_t contexts);

/* What the device itself showed beside what was tracked. */
struct vt_text_view {
	int64_t peak_used, unexplained, tracked_at_sample;
	bool away_from_peak; /* no reading at the tracked peak: the nearest one */
};
void vt_text_device_view(FILE *out, const char *prefix, const struct vt_text_view *view);

struct vt_text_failure {
	uint64_t bytes;                     /* as asked */
	const char *api, *tag, *error_name; /* NULL when unknown */
	int64_t error, at_ns, live_bytes;
};
void vt_text_failure(FILE *out, const char *prefix, const struct vt_text_failure *failure);

/* "    and 99936 more failed allocations, not listed", under the failures
 * listed when the device had more. */
void vt_text_more_failures(FILE *out, const char *prefix, int64_t more);

/* ", and 9990 more tags 4.88 MiB": the tags a failure's "live then" line
 * leaves out, and their bytes. */
void vt_text_more_tags(FILE *out, int64_t more, int64_t bytes);

/* "live at exit: 8.00 MiB in 2 allocations[; graph memory reserved, not
 * trimmed: X]", without its newline: the summary adds its largest group. */
void vt_text_live_at_exit(FILE *out, const char *prefix, int64_t live_bytes, int64_t live_count,
			  int64_t graph_reserved);

/* CUPTI's count of contexts and module images; prefix holds the indent
 * (the summary gives it for the whole process, the tool per device). */
void vt_text_resources(FILE *out, const char *prefix, int64_t contexts, int64_t modules,
		       int64_t image_bytes);
