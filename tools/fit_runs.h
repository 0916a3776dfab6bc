/* The runs vramtrace fit reads: each report's labels, the peak of one
 * device and each tag's bytes at it, grouped by their non-numeric labels,
 * with the numeric labels that vary in a group as its variables. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fit.h"
#include "report_file.h"

struct vt_fit_run {
	const char *file;
	json_t *labels; /* the report's: label -> value, owned */
	const char *program;
	int64_t peak;
	json_t *tags; /* tag -> bytes at the peak, owned */
};

struct vt_fit_group {
	char name[512]; /* "dtype=bf16", or "" when the runs have no such label */
	unsigned run_count;
	unsigned runs[VT_FIT_MAX_RUNS]; /* indices into the runs */
	unsigned variable_count;
	char variables[VT_FIT_MAX_VARIABLES][64];
	double low[VT_FIT_MAX_VARIABLES], high[VT_FIT_MAX_VARIABLES];
	json_t *fixed;     /* numeric labels the same in every run: name -> value */
	const char *error; /* why the group cannot be fitted, or NULL */
};

/* One run per report; false with the reason in error. device < 0: the
 * device with the highest peak in each report. */
bool vt_fit_run_from_report(const struct vt_report_file *file, long device, struct vt_fit_run *run,
			    char *error, size_t size);
void vt_fit_run_free(struct vt_fit_run *run);

/* A setting's value as a number: a decimal one only ("32", "-1", "0.5",
 * "1e-4"), finite; false for any other text ("0x10", "inf", "nan", " 8"),
 * which is a label's text, not a number. The one reader of setting values,
 * in runs' labels and in --predict alike. */
bool vt_fit_parse_value(const char *text, double *value);
/* Whether every run gives label a number (vt_fit_parse_value). */
bool vt_fit_label_numeric(const struct vt_fit_run *runs, unsigned count, const char *label);
/* The runs in groups, with their variables; returns how many groups, or 0
 * with the reason in error. */
unsigned vt_fit_group_runs(const struct vt_fit_run *runs, unsigned count,
			   struct vt_fit_group *groups, unsigned max, char *error, size_t size);
/* A label's value as a number. */
double vt_fit_label_value(const struct vt_fit_run *run, const char *label);
/* The data to fit for one group: the peak (tag NULL) or a tag's bytes. */
void vt_fit_group_data(const struct vt_fit_group *group, const struct vt_fit_run *runs,
		       const char *tag, struct vt_fit_data *data);
void vt_fit_group_free(struct vt_fit_group *group);
