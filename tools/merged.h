/* Several processes' reports (ranks) in one document: each report whole,
 * plus what the ranks say together. Written by `vramtrace merge`, read by
 * report and diff. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report_file.h"

/* A merged document from the loaded reports, in the order given (merged
 * inputs contribute their ranks); NULL when out of memory. */
json_t *vt_merge(const struct vt_report_file *files, size_t count);
/* False, with the reason in error, when two of the reports (or of their
 * ranks) are the same run. */
bool vt_merge_distinct(const struct vt_report_file *files, size_t count, char *error, size_t size);
/* False, with the reason in error, when two ranks go by one name (their
 * rank, else their file): diff and check would add them up as one. */
bool vt_merge_ranks_distinct(const struct vt_report_file *files, size_t count, char *error,
			     size_t size);
/* False, with the reason in error, when the merged document as merge prints
 * it would be limit bytes or more: larger than report, diff and check read
 * (VT_MAX_REPORT_BYTES), so writing it would leave a file no command opens. */
bool vt_merge_readable(json_t *merged, uint64_t limit, char *error, size_t size);
