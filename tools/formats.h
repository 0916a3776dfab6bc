/* The report's renderings. Each writes one whole document to out. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report_file.h"

struct vt_format_options {
	long device; /* -1 for every device */
	long top;    /* rows of stacks, leaks and tags */
	bool color;
	const char *rank; /* in a merged report: the rank being drawn, else NULL */
	uint64_t budget;  /* a budget line on the page's timelines; 0 for none */
};

void vt_format_text(json_t *root, const struct vt_format_options *options, FILE *out);
void vt_format_json(json_t *root, const struct vt_format_options *options, FILE *out);
void vt_format_folded(json_t *root, const struct vt_format_options *options, FILE *out);
void vt_format_trace(json_t *root, const struct vt_format_options *options, FILE *out);
/* vramtrace fit's document as text, json or html. */
void vt_format_fit(json_t *fit, const char *format, FILE *out);
void vt_fit_html(json_t *fit, FILE *out);
void vt_format_html(json_t *root, const struct vt_format_options *options, FILE *out);

/* The pieces a merged report is drawn from. */
void vt_trace_add(json_t *events, json_t *root, const struct vt_format_options *options,
		  int64_t pid_base);
void vt_html_begin(FILE *out);
void vt_html_body(json_t *root, const struct vt_format_options *options, FILE *out);
void vt_html_end(FILE *out);
/* The diff page: both reports and the diff document (as --format json). */
void vt_html_diff(json_t *a, json_t *b, const char *a_path, const char *b_path, json_t *diff,
		  FILE *out);

/* Shared by the formats. */
/* "1.50 GiB"; a negative size keeps its sign ("-512.00 MiB"). */
const char *vt_human(int64_t bytes, char *buf, unsigned size);
/* Text from a report, with control characters shown as escapes: a label or
 * an argument must not move the cursor or colour the terminal. */
void vt_print_safe(FILE *out, const char *text);
/* "function (file:line)" or "module+0xoffset", into buf. */
const char *vt_frame_label(json_t *frame, char *buf, size_t size);
/* Whether a frame is CUDA's, vramtrace's or process start-up plumbing. */
bool vt_frame_is_plumbing(json_t *frame);
/* The devices to show: those matching options->device, in report order. */
bool vt_device_selected(json_t *device, const struct vt_format_options *options);
