/* vramtrace snapshot PID: the report of this moment from a running traced
 * process, in the report format, so report, diff, check, merge and fit
 * read it as they read a report written at exit. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "control_client.h"
#include "report_file.h"

static void usage(FILE *out)
{
	fprintf(out, "Usage: vramtrace snapshot PID [-o FILE] [--reset-peak]\n\n"
		     "Asks a running process traced by vramtrace (vramtrace run, or LD_PRELOAD)\n"
		     "for a report of this moment; `vramtrace ps` lists them.\n\n"
		     "Options:\n"
		     "  -o, --output FILE  write the report there (default: standard output)\n"
		     "  --reset-peak       after the snapshot, start a new peak interval: the\n"
		     "                     next snapshot's peak_since_reset is the peak since\n"
		     "                     now (the run's own peak is never reset)\n"
		     "  -h, --help         show this help\n\n"
		     "Exit status: 0 written, 1 the process could not be asked, 2 bad usage.\n");
}

int vt_command_snapshot(int argc, char **argv)
{
	static const struct option long_options[] = {
		{"output", required_argument, NULL, 'o'},
		{"reset-peak", no_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *output_path = NULL;
	bool reset = false;
	opterr = 0;
	optind = 1;
	for (int c; (c = getopt_long(argc, argv, "o:h", long_options, NULL)) != -1;) {
		switch (c) {
		case 'o': output_path = optarg; break;
		case 'r': reset = true; break;
		case 'h': usage(stdout); return VT_EXIT_OK;
		default:
			fprintf(stderr,
				"vramtrace snapshot: unknown or incomplete option '%s' (see "
				"vramtrace snapshot --help)\n",
				argv[optind - 1]);
			return VT_EXIT_BAD_INPUT;
		}
	}
	pid_t pid;
	if (argc - optind != 1) {
		fprintf(stderr, "vramtrace snapshot: give one process id (see vramtrace ps)\n");
		return VT_EXIT_BAD_INPUT;
	}
	if (!vt_parse_pid("snapshot", argv[optind], &pid))
		return VT_EXIT_BAD_INPUT;
	struct vt_report_file report;
	char *data = NULL, error[1024];
	size_t length = 0;
	if (!vt_control_snapshot(pid, reset, &report, &data, &length, error, sizeof(error))) {
		fprintf(stderr, "vramtrace snapshot: %s\n", error);
		return VT_EXIT_FAILED;
	}
	vt_report_close(&report);
	struct vt_output output;
	bool ok = vt_output_open(&output, output_path, "snapshot");
	if (ok) {
		ok = fwrite(data, 1, length, output.stream) == length;
		ok = vt_output_commit(&output, "snapshot") && ok;
	}
	free(data);
	return ok ? VT_EXIT_OK : VT_EXIT_FAILED;
}
