/* What `vramtrace diff` compares, row by row, once both reports are read:
 * the engine (diff.c) fills it, the format_diff_*.c files write it, and
 * cmd_diff.c reads the options and the reports and runs the two. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report_file.h"
#include "stack_view.h"

enum diff_section { BY_DEVICE, BY_KIND, BY_TAG, BY_STACK, SECTIONS };
extern const char *const vt_diff_section_names[SECTIONS];
extern const char *const vt_diff_section_titles[SECTIONS];

enum diff_format { FORMAT_TEXT, FORMAT_MARKDOWN, FORMAT_JSON, FORMAT_HTML };

struct diff_row {
	char *key;                      /* what matches rows across runs */
	char *label;                    /* how a stack row is shown (stack_view.h); NULL: the key */
	int64_t a, b;                   /* bytes at the peak (devices: the peak) */
	int64_t a_peak, b_peak;         /* own peaks; for several stacks at one place, the most
					   they can have held together (their peaks added) */
	int64_t a_peak_low, b_peak_low; /* the least that peak can be; equal when exact */
};

struct diff_table {
	struct diff_row *rows;
	size_t count, capacity;
	size_t hidden;
	json_t *positions; /* key -> index in rows, while rows are added */
};

struct diff {
	bool by[SECTIONS];
	enum diff_format format;
	uint64_t min_delta;
	long device;
	bool fail_if_grows;
	unsigned __int128 grow_limit; /* hundredths of a percent, any number of them */
	struct vt_report_file a, b;
	struct vt_view_options view;
	struct diff_table tables[SECTIONS];
	char overflow[160]; /* a row whose sum passed 2^63-1 bytes, "" when none */
};

/* Adds one side's rows (side_b: B's), matched by key to the other's. */
void vt_diff_add_side(struct diff *d, const struct vt_report_file *file, bool side_b);
/* Sorts every table by change and sets aside rows changing less than
 * min_delta (never a device's). */
void vt_diff_finish(struct diff *d);
void vt_diff_free(struct diff *d);
/* A row's change as "+12.5%" and ratio as "x1.12" ("new" and "-" from 0). */
void vt_diff_change_texts(const struct diff_row *row, char *relative, char *ratio, size_t size);
/* The text and markdown tables (format_diff_text.c). */
void vt_diff_write_text(const struct diff *d, FILE *out);
/* The diff as one JSON document, which the HTML page also carries
 * (format_diff_json.c). */
json_t *vt_diff_json(const struct diff *d);
