/* What every subcommand shares: where output goes, colour, and the parsing
 * of sizes and percentages. Diagnostics go to stderr as "vramtrace CMD: ...";
 * exit status 2 means bad input or usage. */
#pragma once

#include <stdbool.h>
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
/* Finishes (renames into place); false when anything failed, said on
 * stderr. */
bool vt_cli_output_commit(struct vt_cli_output *output, const char *command);
/* Drops a file output unwritten. */
void vt_cli_output_abort(struct vt_cli_output *output);

/* Whether stream wants ANSI colour: a terminal, and NO_COLOR unset. */
bool vt_color_wanted(FILE *stream);

/* "10", "10%", "12.5%": hundredths of a percent, 0 to 100%. */
bool vt_parse_percent(const char *text, uint32_t *hundredths);
/* The same without the bound of 100%: a growth ("250%" is 3.5 times). */
bool vt_parse_growth(const char *text, unsigned __int128 *hundredths);
/* A size as vt_size_parse takes it, with a clear error naming the option. */
bool vt_parse_size_option(const char *command, const char *option, const char *text,
			  uint64_t *bytes);
/* A whole number from min to max, with a clear error naming the option. */
bool vt_parse_count_option(const char *command, const char *option, const char *text, long min,
			   long max, long *value);

struct vt_report_file;
/* Whether the report (any rank of a merged one) has device ordinal, or
 * device < 0 (every device); else an error naming the devices it has. */
bool vt_need_device(const char *command, const struct vt_report_file *file, long device);
