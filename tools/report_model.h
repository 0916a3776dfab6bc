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

/* A count the report may leave out (older reports, or null): has says
 * whether it is there. */
struct vt_maybe {
	bool has;
	int64_t value;
};

/* A kind's, tag's or stack's figures. */
struct vt_counters {
	int64_t peak_bytes, at_peak_bytes, live_at_exit_bytes, allocations, frees, bytes_allocated;
};

struct vt_kind_row {
	const char *kind;
	struct vt_counters counters;
};

struct vt_tag_row {
	const char *tag;
	struct vt_counters counters;
};

struct vt_stack_row {
	int64_t id;
	const char *tag;
	struct vt_counters counters;
};

struct vt_leak {
	struct vt_maybe stack;
	const char *tag;
	int64_t count, bytes;
};

/* Bytes by tag, in the report's order. */
struct vt_tag_bytes {
	const char *tag;
	int64_t bytes;
};

struct vt_top_stack {
	int64_t stack, bytes;
};

/* A failed allocation, and (where taken) what was live at that moment. */
struct vt_failure {
	uint64_t bytes; /* as asked, to 2^64-1 */
	int64_t at_ns, live_bytes, error;
	const char *api, *tag, *error_name; /* NULL when absent */
	struct vt_maybe stack;
	bool has_snapshot;
	struct vt_tag_bytes *live_by_tag;
	size_t live_by_tag_count;
	struct vt_top_stack *top_stacks;
	size_t top_stack_count;
};

struct vt_timeline_row {
	int64_t t_ns, live_bytes; /* live_bytes: the interval's highest */
	struct vt_maybe min_bytes, max_bytes, end_bytes;
	struct vt_tag_bytes *by_tag;
	size_t by_tag_count;
	json_t *by_tag_json; /* the same, for writers that copy it whole */
};

struct vt_timeline {
	bool present;
	int64_t interval_ns;
	struct vt_maybe end_ns;
	struct vt_timeline_row *rows;
	size_t row_count;
};

struct vt_peak {
	int64_t bytes, at_ns;
	const char *api; /* NULL when absent */
};

struct vt_device_view {
	bool present;
	bool away_from_peak; /* no reading at the tracked peak: the nearest one */
	int64_t peak_used_bytes, unexplained_at_peak_bytes, tracked_at_sample_bytes;
};

struct vt_pool {
	int64_t reserved_bytes, reserved_peak_bytes, used_bytes;
	bool destroyed;
};

struct vt_graph_memory {
	bool present;
	int64_t reserved_bytes, reserved_peak_bytes, used_bytes;
};

/* The peak since the last `vramtrace snapshot --reset-peak`. */
struct vt_peak_since_reset {
	bool present;
	int64_t since_ns, bytes, at_ns;
};

/* A crossing of VRAMTRACE_WATERMARK: when, and how much was live. */
struct vt_crossing {
	int64_t at_ns, live_bytes;
};

struct vt_watermark {
	bool present;
	int64_t high_bytes, low_bytes;
	struct vt_crossing *crossings;
	size_t crossing_count;
};

/* A device, or the host's pinned and registered memory: the same figures. */
struct vt_owner {
	json_t *json; /* the object itself, for writers that copy it whole */
	int64_t ordinal;
	const char *name; /* NULL when absent */
	const char *uuid; /* "GPU-...", NULL when absent */
	struct vt_maybe capacity_bytes;
	struct vt_peak peak;
	int64_t live_at_exit_bytes, live_at_exit_allocations, allocations, frees,
		failed_allocations, bytes_allocated;
	struct vt_kind_row *kinds;
	size_t kind_count;
	struct vt_tag_row *tags;
	size_t tag_count;
	struct vt_stack_row *stacks;
	size_t stack_count;
	/* Every stack holding bytes at the peak, listed or not (newer reports). */
	struct vt_maybe stacks_at_peak, stacks_at_peak_bytes;
	struct vt_leak *leaks;
	size_t leak_count;
	struct vt_failure *failures;
	size_t failure_count;
	struct vt_timeline timeline;
	/* Devices only. */
	struct vt_device_view device_view;
	struct vt_pool *pools;
	size_t pool_count;
	struct vt_graph_memory graph_memory;
	struct vt_peak_since_reset since_reset;
	struct vt_watermark watermark;
};

struct vt_frame {
	const char *function, *module, *file; /* NULL when absent */
	int64_t line, offset;
	bool python;  /* a Python frame */
	bool inlined; /* compiled into the next frame's function, at its line */
};

/* A stack's frames, innermost first, resolved through the frame table. */
struct vt_stack_frames {
	int64_t id;
	int64_t group; /* the smallest id of the stacks at its place; its own id in older reports */
	const struct vt_frame **frames;
	size_t count;
};

struct vt_label {
	const char *key, *value;
};

struct vt_run {
	const char **command;
	size_t command_count;
	struct vt_label *labels;
	size_t label_count;
	int64_t pid;
	const char *host, *rank, *start, *end, *ended_by; /* NULL when absent */
	bool has_cuda;
	int64_t cuda_runtime, cuda_driver, cuda_device_count;
};

struct vt_resource_event {
	const char *event;
	struct vt_maybe device;
	int64_t bytes;
};

/* One process's report. */
struct vt_report {
	json_t *root;
	struct vt_run run;
	struct vt_owner *devices;
	size_t device_count;
	struct vt_owner host;
	struct vt_frame *frame_table;
	size_t frame_table_count;
	struct vt_frame *inline_frames; /* frames written inside stacks (older reports) */
	size_t inline_frame_count;
	struct vt_stack_frames *stacks; /* sorted by id */
	size_t stack_count;
	bool has_resources; /* CUPTI's resource events were recorded */
	struct vt_resource_event *resources;
	size_t resource_count;
};

struct vt_rank {
	json_t *json;     /* the rank's entry, for writers that copy it whole */
	const char *rank; /* NULL when the report had none */
	const char *file;
	struct vt_report report;
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
bool vt_report_model_fill(json_t *root, struct vt_report *out);
void vt_report_model_free(struct vt_report *report);
bool vt_merged_model_fill(json_t *root, struct vt_merged *out);
void vt_merged_model_free(struct vt_merged *merged);

/* A stack's frames, or NULL for a stack the report does not list. */
/* A failed request's size (failures[].bytes): an integer, or from 2^63 on
 * the string of its digits (as the reader keeps what jansson cannot hold);
 * false for anything else. */
bool vt_request_bytes(json_t *value, uint64_t *bytes);
const struct vt_stack_frames *vt_report_stack(const struct vt_report *report, int64_t id);
/* The largest device peak. */
int64_t vt_report_peak(const struct vt_report *report);
