/* The report as the tools read it: typed structs, filled once by the
 * loader from a document that passed its checks (report_file.c). Every
 * reader (report's formats, diff, check, merge, fit) reads these, never
 * the JSON: a field's name is spelled once, here and in the filler.
 * Strings point into the parsed document, which the model keeps. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/report/report_schema.h"

/* A count the report may leave out (older reports, or null): has says
 * whether it is there. */
struct vt_maybe {
	bool has;
	int64_t value;
};

/* The members of a list of report_schema.h, one per field, named as its
 * key and typed as its type says; NESTED fields are declared by hand. */
#define VT_MEMBERS(list)              list(VT_MEMBER)
#define VT_MEMBER(key, type, value)   VT_MEMBER_##type(key)
#define VT_MEMBER_COUNT(key)          int64_t key;
#define VT_MEMBER_COUNT_OR_NULL(key)  struct vt_maybe key;
#define VT_MEMBER_STACK(key)          int64_t key;
#define VT_MEMBER_STACK_OR_NULL(key)  struct vt_maybe key;
#define VT_MEMBER_REQUEST(key)        uint64_t key; /* as asked, to 2^64-1 */
#define VT_MEMBER_INTEGER(key)        int64_t key;
#define VT_MEMBER_STRING(key)         const char *key;
#define VT_MEMBER_STRING_OR_NULL(key) const char *key;
#define VT_MEMBER_FIGURE(key)         int64_t key;
#define VT_MEMBER_FIGURE_OR_NULL(key) struct vt_maybe key;
#define VT_MEMBER_SIGNED(key)         int64_t key;
#define VT_MEMBER_NOTE(key)           const char *key;
#define VT_MEMBER_FLAG(key)           bool key;
#define VT_MEMBER_NESTED(key)

/* A kind's, tag's or stack's figures. */
struct vt_counters {
	VT_MEMBERS(VT_SCHEMA_COUNTER)
};

struct vt_kind_row {
	VT_MEMBERS(VT_SCHEMA_KIND)
	struct vt_counters counters;
};

struct vt_tag_row {
	VT_MEMBERS(VT_SCHEMA_TAG)
	struct vt_counters counters;
};

struct vt_stack_row {
	VT_MEMBERS(VT_SCHEMA_STACK)
	struct vt_counters counters;
};

struct vt_leak_model {
	VT_MEMBERS(VT_SCHEMA_LEAK)
};

/* Bytes by tag, in the report's order. */
struct vt_tag_bytes_model {
	const char *tag;
	int64_t bytes;
};

struct vt_top_stack {
	VT_MEMBERS(VT_SCHEMA_TOP_STACK)
};

/* A failed allocation, and (where taken) what was live at that moment. */
struct vt_failure_model {
	VT_MEMBERS(VT_SCHEMA_FAILURE)
	bool has_snapshot;
	struct vt_tag_bytes_model *live_by_tag;
	size_t live_by_tag_count;
	struct vt_top_stack *top_stacks;
	size_t top_stack_count;
};

struct vt_timeline_row_model {
	VT_MEMBERS(VT_SCHEMA_ROW) /* live_bytes: the interval's highest */
	struct vt_tag_bytes_model *by_tag;
	size_t by_tag_count;
	json_t *by_tag_json; /* the same, for writers that copy it whole */
	/* The largest stacks live at the highest point (other_stacks_bytes the
	 * rest's); has_stacks false past the history's bound and in older
	 * reports. */
	bool has_stacks;
	struct vt_top_stack *top_stacks;
	size_t top_stack_count;
};

struct vt_timeline_model {
	bool present;
	VT_MEMBERS(VT_SCHEMA_TIMELINE)
	struct vt_timeline_row_model *rows;
	size_t row_count;
};

struct vt_peak {
	VT_MEMBERS(VT_SCHEMA_PEAK)
};

struct vt_device_view_model {
	bool present;
	/* No reading at the tracked peak: the figures are the nearest one's
	 * (sampled_at_peak false; a report without the flag reads as at it). */
	bool away_from_peak;
	VT_MEMBERS(VT_SCHEMA_DEVICE_VIEW)
};

struct vt_pool {
	VT_MEMBERS(VT_SCHEMA_RESERVE)
	VT_MEMBERS(VT_SCHEMA_POOL)
};

struct vt_graph_memory {
	bool present;
	VT_MEMBERS(VT_SCHEMA_RESERVE)
	VT_MEMBERS(VT_SCHEMA_GRAPH_MEMORY)
};

/* The peak since the last `vramtrace snapshot --reset-peak`. */
struct vt_peak_since_reset {
	bool present;
	VT_MEMBERS(VT_SCHEMA_INTERVAL)
};

/* A crossing of VRAMTRACE_WATERMARK: when, and how much was live. */
struct vt_crossing_model {
	VT_MEMBERS(VT_SCHEMA_CROSSING)
};

struct vt_watermark {
	bool present;
	VT_MEMBERS(VT_SCHEMA_WATERMARK)
	struct vt_crossing_model *crossings;
	size_t crossing_count;
};

/* A device, or the host's pinned and registered memory: the same figures. */
struct vt_owner {
	json_t *json;                /* the object itself, for writers that copy it whole */
	VT_MEMBERS(VT_SCHEMA_DEVICE) /* devices only; uuid "GPU-..." */
	VT_MEMBERS(VT_SCHEMA_TOTALS)
	struct vt_peak peak;
	struct vt_kind_row *kinds;
	size_t kind_count;
	struct vt_tag_row *tags;
	size_t tag_count;
	struct vt_stack_row *stacks;
	size_t stack_count;
	/* Every stack holding bytes at the peak, listed or not (newer reports). */
	VT_MEMBERS(VT_SCHEMA_STACKS_AT_PEAK)
	struct vt_leak_model *leaks;
	size_t leak_count;
	struct vt_failure_model *failures;
	size_t failure_count;
	struct vt_timeline_model timeline;
	/* Devices only. */
	struct vt_device_view_model device_view;
	struct vt_pool *pools;
	size_t pool_count;
	struct vt_graph_memory graph_memory;
	struct vt_peak_since_reset since_reset;
	struct vt_watermark watermark;
};

/* python: a Python frame; inlined: compiled into the next frame's
 * function, at its line. */
struct vt_frame_model {
	VT_MEMBERS(VT_SCHEMA_FRAME)
};

/* A stack's frames, innermost first, resolved through the frame table. */
struct vt_stack_frames {
	int64_t id;
	int64_t group; /* the smallest id of the stacks at its place; its own id in older reports */
	const struct vt_frame_model **frames;
	size_t count;
};

struct vt_label {
	const char *key, *value;
};

struct vt_run_model {
	const char **command;
	size_t command_count;
	struct vt_label *labels;
	size_t label_count;
	VT_MEMBERS(VT_SCHEMA_RUN)
	bool has_cuda;
	struct vt_cuda {
		VT_MEMBERS(VT_SCHEMA_CUDA)
	} cuda;
};

struct vt_resource_event_model {
	VT_MEMBERS(VT_SCHEMA_RESOURCE_EVENT)
};

/* A listed row of two stacks or more, with its own high point. */
struct vt_group_peak {
	VT_MEMBERS(VT_SCHEMA_GROUP_PEAK)
};

/* One process's report. */
struct vt_report_model {
	json_t *root;
	struct vt_run_model run;
	struct vt_owner *devices;
	size_t device_count;
	struct vt_owner host;
	struct vt_frame_model *frame_table;
	size_t frame_table_count;
	struct vt_frame_model *inline_frames; /* frames written inside stacks (older reports) */
	size_t inline_frame_count;
	struct vt_stack_frames *stacks; /* sorted by id */
	size_t stack_count;
	bool has_resources; /* CUPTI's resource events were recorded */
	struct vt_resource_event_model *resources;
	size_t resource_count;
	struct vt_group_peak *group_peaks; /* newer reports */
	size_t group_peak_count;
};

struct vt_rank {
	json_t *json;     /* the rank's entry, for writers that copy it whole */
	const char *rank; /* NULL when the report had none */
	const char *file;
	struct vt_report_model report;
};

struct vt_merged_tag {
	const char *tag;
	int64_t at_peak_sum_bytes, at_peak_max_bytes;
};

/* vramtrace merge's document: the ranks' reports, and what they say
 * together. */
struct vt_merged {
	json_t *root;
	int64_t peak_max_bytes, peak_min_bytes, peak_skew_bytes;
	const char *peak_max_rank, *peak_min_rank;
	struct vt_merged_tag *tags;
	size_t tag_count;
	struct vt_rank *ranks;
	size_t rank_count;
};

/* Fills out from a document vt_report_check accepted; false only when
 * memory runs out. vt_report_model_free releases what it allocated (the
 * document stays its caller's). */
bool vt_report_model_fill(json_t *root, struct vt_report_model *out);
void vt_report_model_free(struct vt_report_model *report);
bool vt_merged_model_fill(json_t *root, struct vt_merged *out);
void vt_merged_model_free(struct vt_merged *merged);

/* The name a merged report's rows go by: its rank, else its file. */
const char *vt_rank_name(const struct vt_rank *rank);

/* A stack's frames, or NULL for a stack the report does not list. */
/* A failed request's size (failures[].bytes): an integer, or from 2^63 on
 * the string of its digits (as the reader keeps what jansson cannot hold);
 * false for anything else. */
bool vt_request_bytes(json_t *value, uint64_t *bytes);
const struct vt_stack_frames *vt_report_stack(const struct vt_report_model *report, int64_t id);
/* The largest device peak. */
int64_t vt_report_peak(const struct vt_report_model *report);
