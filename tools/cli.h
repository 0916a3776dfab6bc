/* What every subcommand shares: where output goes, colour, and the parsing
 * of sizes and percentages. Diagnostics go to stderr as "vramtrace CMD: ...";
 * exit status 2 means bad input or usage. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diagnostics.h"

#define VT_EXIT_OK        0
#define VT_EXIT_FAILED    1 /* a check or gate did not pass */
#define VT_EXIT_BAD_INPUT 2

/* Output to stdout, or to path (tools/output.c). A regular file or a new
 * path is written through a temporary file beside it (beside a symlink's
 * target, which is what is replaced) that replaces it only when all was
 * written: a failed run never leaves a partial file. A replaced file keeps
 * its mode; a new one gets 0666 less the umask. A device, FIFO or other
 * file that is not regular (/dev/null, /dev/stdout) is written through. */
struct vt_cli_output {
	FILE *stream;
	char *path;      /* as given; NULL for standard output */
	char *target;    /* what is replaced: path, or its symlink's target */
	char *temporary; /* NULL when written through */
};

bool vt_cli_output_open(struct vt_cli_output *output, const char *path, const char *command);
/* Whether path (an -o) is none of the inputs (through links too); else
 * false, said on stderr. `report r.json -o r.json`, meant for r.html,
 * replaced the report with its text, which no command reads back: every
 * command refuses to write over a report it reads, as gcc and cp refuse a
 * source as their output. */
bool vt_cli_output_apart(const char *command, const char *path, const char *const *inputs,
			 size_t count);
/* Finishes (renames into place); false when anything failed, said on
 * stderr. */
bool vt_cli_output_commit(struct vt_cli_output *output, const char *command);
/* Drops a file output unwritten. */
void vt_cli_output_abort(struct vt_cli_output *output);

/* Whether stream wants ANSI colour: a terminal, and NO_COLOR unset. */
bool vt_color_wanted(FILE *stream);

/* "10", "10%", "12.5%" as an option's value: hundredths of a percent, to
 * a hundredth, from 0 to 100% when to_100, else any from 0 up (a growth:
 * "250%" is 3.5 times); false, after one clear error naming the option
 * (not a percentage, above 100, or finer than a hundredth), otherwise. */
bool vt_parse_percent_option(const char *command, const char *option, const char *text, bool to_100,
			     unsigned __int128 *hundredths);
/* What text is as a size to at most max bytes: a size, a size past max
 * (16EiB, 2^64 bytes, is past any), or not a size; *decimal says whether
 * its unit was a decimal one (GB). The one place that tells them apart. */
enum vt_size_reading { VT_SIZE_OK, VT_SIZE_TOO_LARGE, VT_SIZE_NOT_A_SIZE };
enum vt_size_reading vt_read_size(const char *text, uint64_t max, uint64_t *bytes, bool *decimal);
/* "2^63-1 bytes (8 EiB)" for INT64_MAX, else "2^64-1 bytes (16 EiB)". */
const char *vt_size_limit_text(uint64_t max);
/* A size as vt_read_size takes it, to max bytes (UINT64_MAX, or INT64_MAX
 * where it becomes a signed count), with a clear error naming the option:
 * too large, or not a size. */
bool vt_parse_size_option(const char *command, const char *option, const char *text, uint64_t max,
			  uint64_t *bytes);
/* A whole number from min to max, with a clear error naming the option. */
bool vt_parse_count_option(const char *command, const char *option, const char *text, long min,
			   long max, long *value);

struct vt_report_file;
/* Whether the report (any rank of a merged one) has device ordinal, or
 * device < 0 (every device); else an error naming the devices it has. */
bool vt_need_device(const char *command, const struct vt_report_file *file, long device);
