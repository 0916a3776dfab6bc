/* Several processes' reports (ranks) in one document: each report whole,
 * plus what the ranks say together. Written by `vramtrace merge`, read by
 * report and diff. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* A merged document from the reports, in the order given (merged inputs
 * contribute their ranks); NULL when out of memory. */
json_t *vt_merge(json_t *const *reports, const char *const *files, size_t count);
/* False, with the reason in error, when two of the reports (or of their
 * ranks) are the same run. */
bool vt_merge_distinct(json_t *const *reports, const char *const *files, size_t count, char *error,
		       size_t size);
/* The largest device peak of one single-process report. */
int64_t vt_report_peak(json_t *report);
