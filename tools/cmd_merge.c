/* vramtrace merge: one report per process (torchrun, Slurm, MPI ranks)
 * into one merged report. */
#include <stdlib.h>

#include "json_build.h"
#include "cli.h"
#include "commands.h"
#include "formats.h"
#include "merged.h"
#include "options.h"
#include "report_file.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: vramtrace merge FILES... [-o OUT]\n\n"
		"Combines per-process reports (or merged ones) into one merged report:\n"
		"per-rank peaks, the max, min and skew across ranks, and each tag's bytes at\n"
		"the peaks summed over ranks and at most on one rank. report and diff read it.\n\n"
		"Options:\n"
		"  -o, --output OUT  write the merged report to OUT instead of standard output\n"
		"  -h, --help        show this help\n\n"
		"Exit status: 0 written, 2 bad input or usage (nothing is written).\n");
}

static const struct vt_option merge_options[] = {
	{"output", 'o', VT_OPTION_VALUE, 'o', "OUT, a file (- for standard output)", NULL},
	{"help", 'h', VT_OPTION_FLAG, 'h', NULL, NULL},
};

/* Returns -1 to go on, or the exit status; files gets the operands. */
static int parse(int argc, char **argv, const char **output, char **files, size_t *count)
{
	struct vt_arguments arguments;
	vt_arguments_init(&arguments, "merge", usage, argc, argv, merge_options,
			  sizeof(merge_options) / sizeof(merge_options[0]));
	const char *value;
	for (int id; (id = vt_arguments_next(&arguments, &value)) != VT_ARGUMENT_END;) {
		if (id <= VT_ARGUMENT_ERROR)
			return vt_arguments_exit(id);
		if (id == 'o')
			*output = value;
		else
			files[(*count)++] = (char *)value;
	}
	if (*count == 0) {
		vt_usage_error("merge", "give the reports to merge");
		return VT_EXIT_BAD_INPUT;
	}
	return -1;
}

int vt_command_merge(int argc, char **argv)
{
	const char *output = NULL;
	size_t count = 0;
	char **files = calloc((size_t)argc + 1, sizeof(*files));
	int done = files ? parse(argc, argv, &output, files, &count) : VT_EXIT_BAD_INPUT;
	if (done < 0 && !vt_cli_output_apart("merge", output, (const char *const *)files, count))
		done = VT_EXIT_BAD_INPUT;
	if (done >= 0) {
		free(files);
		return done;
	}
	struct vt_report_file *reports = calloc(count, sizeof(*reports));
	int status = reports ? VT_EXIT_OK : VT_EXIT_BAD_INPUT;
	char error[1024];
	size_t loaded = 0;
	for (; status == VT_EXIT_OK && loaded < count; loaded++) {
		if (!vt_report_load(files[loaded], &reports[loaded], error, sizeof(error))) {
			vt_diagnostic("vramtrace merge: %s", error);
			status = VT_EXIT_BAD_INPUT;
			break;
		}
	}
	if (status == VT_EXIT_OK &&
	    (!vt_merge_distinct(reports, count, error, sizeof(error)) ||
	     !vt_merge_ranks_distinct(reports, count, error, sizeof(error)))) {
		vt_diagnostic("vramtrace merge: %s", error);
		status = VT_EXIT_BAD_INPUT;
	}
	json_t *merged = status == VT_EXIT_OK ? vt_merge(reports, count) : NULL;
	if (merged && !vt_merge_readable(merged, VT_MAX_REPORT_BYTES, error, sizeof(error))) {
		vt_diagnostic("vramtrace merge: %s", error);
		json_decref(merged);
		merged = NULL;
		status = VT_EXIT_BAD_INPUT;
	}
	struct vt_cli_output out;
	if (merged && vt_cli_output_open(&out, output, "merge")) {
		vt_print_json(merged, out.stream);
		if (!vt_cli_output_commit(&out, "merge"))
			status = VT_EXIT_BAD_INPUT;
	} else if (status == VT_EXIT_OK) {
		status = VT_EXIT_BAD_INPUT;
	}
	if (merged)
		json_decref(merged);
	for (size_t i = 0; i < loaded; i++)
		vt_report_close(&reports[i]);
	free(reports);
	free(files);
	return status;
}
