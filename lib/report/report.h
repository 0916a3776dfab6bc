/* The report: the JSON document (schema vramtrace/1, docs/report-format.md)
 * and the text summary, both from one snapshot. */
#pragma once

#include <stdio.h>

#include "../core/leaks.h"
#include "../core/top.h"
#include "../core/tracker.h"
#include "../core/views.h"
#include "run.h"
#include "symbolize.h"

#define VT_REPORT_SCHEMA "vramtrace/1"

struct vt_report {
	const struct vt_run *run;
	const struct vt_snapshot *snapshot;
	const struct vt_device_info *devices; /* VT_MAX_DEVICES entries */
	const struct vt_leaks *leaks;         /* NULL: none collected */
	unsigned top;                         /* stacks and leak groups listed per device */
	struct vt_symbolizer *symbolizer;     /* NULL: frames left as addresses */
	/* From a signal handler: nothing may allocate, so lists are bounded by
	 * VT_REPORT_EMERGENCY_TOP and stacks by VT_REPORT_EMERGENCY_STACKS. */
	bool emergency;
	const struct vt_device_view *views; /* VT_VIEW_DEVICES entries, or NULL */
	const struct vt_nvml_status *nvml;  /* NULL: not asked */
	const struct vt_pool_view *pools;   /* pool_count entries */
	size_t pool_count;
	const struct vt_graph_view *graphs; /* VT_VIEW_DEVICES entries, or NULL */
	const struct vt_cupti_view *cupti;  /* NULL: not read */
	unsigned left_out;                  /* VT_LEFT_OUT_*: what this report could not gather */
	bool framework_cache_off;           /* the frameworks' caches were off for this run */
	unsigned recording;                 /* which sources recorded: VT_SOURCE_* bits */
};

/* What a report written in a hurry leaves out, named in tracer.left_out. */
enum {
	VT_LEFT_OUT_LEAKS = 1 << 0,
	VT_LEFT_OUT_SYMBOLS = 1 << 1,
	VT_LEFT_OUT_DEVICE_VIEW = 1 << 2,
	VT_LEFT_OUT_POOLS = 1 << 3,
	VT_LEFT_OUT_GRAPH_MEMORY = 1 << 4,
	VT_LEFT_OUT_RESOURCES = 1 << 5,
	VT_LEFT_OUT_TAGS = 1 << 6, /* names past VT_MAX_TAGS, under "other tags" */
};

#define VT_REPORT_EMERGENCY_TOP    32
#define VT_REPORT_EMERGENCY_STACKS 512

/* The tags of stats that saw allocations, by bytes at the peak, then own
 * peak; returns how many were written to order, which holds
 * stats->tags.size entries (VT_MAX_TAGS at most). */
uint32_t vt_report_tag_order(const struct vt_device_stats *stats, uint32_t *order);
/* The top stacks of stats by bytes at the peak; returns how many. order and
 * scratch hold top entries. */
uint32_t vt_report_top_stacks(const struct vt_device_stats *stats, unsigned top, uint32_t *order,
			      struct vt_top_entry *scratch);

/* Where a stack allocated, in one line: its innermost Python frame when it
 * has one, else its first frame outside CUDA's libraries, as "function
 * (file:line)". */
void vt_report_describe_stack(struct vt_symbolizer *symbolizer, uint32_t stack, char *out,
			      size_t size);

/* Async-signal-safe when report->emergency is set. */
bool vt_report_write_json(const struct vt_report *report, int fd);
/* The same to a client's socket: a client that hung up fails the write,
 * raising no SIGPIPE, and so does one still reading once CLOCK_MONOTONIC
 * passes deadline_ns (0: never). */
bool vt_report_write_json_to_socket(const struct vt_report *report, int fd, uint64_t deadline_ns);
/* Every line starts "vramtrace: ", so it cannot be mistaken for the
 * program's own output. */
void vt_report_write_summary(const struct vt_report *report, FILE *out);
