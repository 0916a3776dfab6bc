/* vramtrace snapshot PID: the report of this moment from a running traced
 * process, in the report format, so report, diff, check, merge and fit
 * read it as they read a report written at exit. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "control_client.h"
#include "options.h"
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

static const struct vt_option snapshot_options[] = {
	{"output", 'o', VT_OPTION_VALUE, 'o', "FILE (- for standard output)", NULL},
	{"reset-peak", 0, VT_OPTION_FLAG, 'r', NULL, NULL},
	{"help", 'h', VT_OPTION_FLAG, 'h', NULL, NULL},
};

int vt_command_snapshot(int argc, char **argv)
{
	const char *output_path = NULL, *pid_text = NULL;
	bool reset = false;
	struct vt_arguments arguments;
	vt_arguments_init(&arguments, "snapshot", usage, argc, argv, snapshot_options,
			  sizeof(snapshot_options) / sizeof(snapshot_options[0]));
	const char *value;
	for (int id; (id = vt_arguments_next(&arguments, &value)) != VT_ARGUMENT_END;) {
		if (id <= VT_ARGUMENT_ERROR)
			return vt_arguments_exit(id);
		if (id == VT_ARGUMENT_OPERAND && pid_text) {
			vt_usage_error("snapshot", "give one process id, not '%s' too", value);
			return VT_EXIT_BAD_INPUT;
		}
		if (id == 'o')
			output_path = value;
		else if (id == 'r')
			reset = true;
		else
			pid_text = value;
	}
	pid_t pid;
	if (!pid_text) {
		vt_usage_error("snapshot", "give one process id (vramtrace ps lists them)");
		return VT_EXIT_BAD_INPUT;
	}
	if (!vt_parse_pid("snapshot", pid_text, &pid))
		return VT_EXIT_BAD_INPUT;
	struct vt_report_file report;
	char *data = NULL, error[1024];
	size_t length = 0;
	if (!vt_control_snapshot(pid, reset, &report, &data, &length, error, sizeof(error))) {
		vt_diagnostic("vramtrace snapshot: %s", error);
		return VT_EXIT_FAILED;
	}
	vt_report_close(&report);
	struct vt_cli_output output;
	bool ok = vt_cli_output_open(&output, output_path, "snapshot");
	if (ok) {
		ok = fwrite(data, 1, length, output.stream) == length;
		ok = vt_cli_output_commit(&output, "snapshot") && ok;
	}
	free(data);
	return ok ? VT_EXIT_OK : VT_EXIT_FAILED;
}
