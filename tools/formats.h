/* The report's renderings. Each writes one whole document to out. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report_file.h"
#include "report_model.h"
#include "view_options.h"

struct vt_format_options {
	long device;    /* -1 for every device */
	long top;       /* rows of stacks, leaks and tags */
	bool top_given; /* --top was given: the html page holds that many rows, else all */
	bool color;
	const char *rank;            /* in a merged report: the rank being drawn, else NULL */
	uint64_t budget;             /* a budget line on the page's timelines; 0 for none */
	struct vt_view_options view; /* how much of each stack to show */
};

void vt_format_text(const struct vt_report_model *report, const struct vt_format_options *options,
		    FILE *out);
void vt_format_json(const struct vt_report_model *report, const struct vt_format_options *options,
		    FILE *out);
void vt_format_folded(const struct vt_report_model *report, const struct vt_format_options *options,
		      FILE *out);
void vt_format_trace(const struct vt_report_model *report, const struct vt_format_options *options,
		     FILE *out);
/* vramtrace fit's document as text, json or html. */
void vt_format_fit(json_t *fit, const char *format, FILE *out);
void vt_fit_html(json_t *fit, FILE *out);
void vt_format_html(const struct vt_report_model *report, const struct vt_format_options *options,
		    FILE *out);

/* The pieces a merged report is drawn from. */
void vt_trace_add(json_t *events, const struct vt_report_model *report,
		  const struct vt_format_options *options, int64_t pid_base);
void vt_html_begin(FILE *out);
void vt_html_body(const struct vt_report_model *report, const struct vt_format_options *options,
		  FILE *out);
void vt_html_end(FILE *out);
/* Data for the page's script, escaped for a script element. */
void vt_html_data(FILE *out, json_t *data);
/* The diff page: both reports and the diff document (as --format json). */
void vt_html_diff(json_t *a, json_t *b, const char *a_path, const char *b_path, json_t *diff,
		  FILE *out);

/* Shared by the formats. */
/* "1.50 GiB"; a negative size keeps its sign ("-512.00 MiB"). */
const char *vt_human(int64_t bytes, char *buf, unsigned size);
/* The same for any unsigned byte count, to 2^64-1 ("16.00 EiB"). */
const char *vt_bytes_text(uint64_t bytes, char *buf, unsigned size);
/* Text from a report, with control characters shown as escapes: a label or
 * an argument must not move the cursor or colour the terminal. */
void vt_print_safe(FILE *out, const char *text);
/* The same into buf (cut to fit), for a line built elsewhere or printed
 * in a column: text or NULL (then fallback) as vt_print_safe shows it. */
const char *vt_safe(const char *text, const char *fallback, char *buf, size_t size);
/* A setting (a label's number) as exactly as a double holds it: a whole
 * number in full ("1048576", where %g wrote 1.04858e+06), else the
 * shortest text that reads back as the same double ("0.1", "2.5"). */
const char *vt_number_text(double value, char *buf, size_t size);
/* "function (file:line)" or "module+0xoffset", into buf. */
const char *vt_frame_label(const struct vt_frame_model *frame, char *buf, size_t size);
/* Whether a frame is CUDA's, vramtrace's or process start-up plumbing. */
bool vt_frame_is_plumbing(const struct vt_frame_model *frame);
/* The devices to show: those matching options->device, in report order. */
bool vt_device_selected(const struct vt_owner *device, const struct vt_format_options *options);
/* A copy of the report's document with the selected devices alone. */
json_t *vt_selected_document(const struct vt_report_model *report,
			     const struct vt_format_options *options);
/* A running process's levels, a line each where the report has them: the
 * peak since `snapshot --reset-peak`, and VRAMTRACE_WATERMARK's crossings. */
void vt_print_levels(FILE *out, const struct vt_owner *device, const char *indent);
/* A JSON document, indented, in its own order. */
void vt_print_json(json_t *document, FILE *out);
/* How many bytes vt_print_json writes for document (0 when it cannot say). */
uint64_t vt_print_json_bytes(json_t *document);
