/* vramtrace merge: one report per process (torchrun, Slurm, MPI ranks)
 * into one merged report. */
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "merged.h"
#include "report_file.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: vramtrace merge FILES... -o OUT\n\n"
		"Combines per-process reports (or merged ones) into one merged report:\n"
		"per-rank peaks, the max, min and skew across ranks, and each tag's bytes at\n"
		"the peaks summed over ranks and at most on one rank. report and diff read it.\n\n"
		"Options:\n"
		"  -o, --output OUT  where to write the merged report (required; - for stdout)\n"
		"  -h, --help        show this help\n\n"
		"Exit status: 0 written, 2 bad input or usage (nothing is written).\n");
}

int vt_command_merge(int argc, char **argv)
{
	static const struct option long_options[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *output = NULL;
	opterr = 0;
	optind = 1;
	for (int c; (c = getopt_long(argc, argv, "o:h", long_options, NULL)) != -1;) {
		if (c == 'o') {
			output = optarg;
		} else if (c == 'h') {
			usage(stdout);
			return VT_EXIT_OK;
		} else {
			fprintf(stderr, "vramtrace merge: unknown or incomplete option '%s'\n",
				argv[optind - 1]);
			usage(stderr);
			return VT_EXIT_BAD_INPUT;
		}
	}
	size_t count = (size_t)(argc - optind);
	if (count == 0 || !output) {
		fprintf(stderr, "vramtrace merge: give the reports and -o OUT\n");
		usage(stderr);
		return VT_EXIT_BAD_INPUT;
	}
	struct vt_report_file *reports = calloc(count, sizeof(*reports));
	int status = reports ? VT_EXIT_OK : VT_EXIT_BAD_INPUT;
	char error[1024];
	size_t loaded = 0;
	for (; status == VT_EXIT_OK && loaded < count; loaded++) {
		if (!vt_report_load(argv[optind + (int)loaded], &reports[loaded], error,
				    sizeof(error))) {
			fprintf(stderr, "vramtrace merge: %s\n", error);
			status = VT_EXIT_BAD_INPUT;
			break;
		}
	}
	if (status == VT_EXIT_OK && !vt_merge_distinct(reports, count, error, sizeof(error))) {
		fprintf(stderr, "vramtrace merge: %s\n", error);
		status = VT_EXIT_BAD_INPUT;
	}
	json_t *merged = status == VT_EXIT_OK ? vt_merge(reports, count) : NULL;
	struct vt_output out;
	if (merged && vt_output_open(&out, output, "merge")) {
		json_dumpf(merged, out.stream, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', out.stream);
		if (!vt_output_commit(&out, "merge"))
			status = VT_EXIT_BAD_INPUT;
	} else if (status == VT_EXIT_OK) {
		status = VT_EXIT_BAD_INPUT;
	}
	if (merged)
		json_decref(merged);
	for (size_t i = 0; i < loaded; i++)
		vt_report_close(&reports[i]);
	free(reports);
	return status;
}
