/* vramtrace ps: the processes of this user traced by vramtrace now, each
 * with its devices' live and peak bytes, from a snapshot of each. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "control_client.h"
#include "formats.h"
#include "options.h"
#include "report_file.h"

#define MAX_PROCESSES 4096

static void usage(FILE *out)
{
	fprintf(out, "Usage: vramtrace ps\n\n"
		     "Lists the running processes of this user traced by vramtrace, with their\n"
		     "devices' live and peak bytes now. Sockets left by processes that ended\n"
		     "without a word (SIGKILL) are removed.\n\n"
		     "Options:\n  -h, --help  show this help\n");
}

/* The command line, its words separated by spaces and shown as vt_safe
 * shows them (a word of the traced program's argv may hold a terminal's
 * escapes), cut with an ellipsis at a character's boundary. */
static void command_text(const struct vt_run_model *run, char *out, size_t size)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < run->command_count && used + 1 < size; i++) {
		char word[256];
		used += (size_t)snprintf(out + used, size - used, "%s%s", i ? " " : "",
					 vt_safe(run->command[i], "", word, sizeof(word)));
	}
	if (used < size - 1 || size <= 4)
		return;
	size_t cut = size - 4;
	while (cut > 0 && ((unsigned char)out[cut] & 0xc0) == 0x80)
		cut--; /* not inside a character */
	strcpy(out + cut, "...");
}

static void print_row(pid_t pid, const struct vt_report_model *report)
{
	char command[61], live_text[32], peak_text[32], devices[64] = "";
	int64_t live = 0, peak = 0;
	size_t used = 0;
	for (size_t i = 0; i < report->device_count; i++) {
		const struct vt_owner *device = &report->devices[i];
		live += device->live_at_exit_bytes;
		peak = device->peak.bytes > peak ? device->peak.bytes : peak;
		if (used < sizeof(devices))
			used += (size_t)snprintf(devices + used, sizeof(devices) - used,
						 "%s%" PRId64, i ? "," : "", device->ordinal);
	}
	command_text(&report->run, command, sizeof(command));
	printf("%-8d %-8s %12s %12s  %s\n", (int)pid, report->device_count ? devices : "-",
	       vt_human(live, live_text, sizeof(live_text)),
	       vt_human(peak, peak_text, sizeof(peak_text)), command);
}

static void print_taken(pid_t pid, struct vt_report_file *report, char *data, void *context)
{
	(void)context;
	print_row(pid, &report->report);
	vt_report_close(report);
	free(data);
}

static void say_missed(pid_t pid, const char *error, void *context)
{
	(void)pid, (void)context;
	vt_diagnostic("vramtrace ps: %s", error);
}

int vt_command_ps(int argc, char **argv)
{
	static const struct vt_option ps_options[] = {
		{"help", 'h', VT_OPTION_FLAG, 'h', NULL, NULL},
	};
	struct vt_arguments arguments;
	vt_arguments_init(&arguments, "ps", usage, argc, argv, ps_options, 1);
	const char *value;
	for (int id; (id = vt_arguments_next(&arguments, &value)) != VT_ARGUMENT_END;) {
		if (id <= VT_ARGUMENT_ERROR)
			return vt_arguments_exit(id);
		if (id == VT_ARGUMENT_OPERAND)
			vt_usage_error("ps", "takes no arguments, not '%s'", value);
		return VT_EXIT_BAD_INPUT;
	}
	static pid_t pids[MAX_PROCESSES];
	char error[1024];
	int count = vt_control_list(pids, MAX_PROCESSES, error, sizeof(error));
	if (count < 0) {
		vt_diagnostic("vramtrace ps: %s", error);
		return VT_EXIT_FAILED;
	}
	printf("%-8s %-8s %12s %12s  %s\n", "PID", "DEVICES", "LIVE", "PEAK", "COMMAND");
	vt_control_snapshot_all(pids, (size_t)count,
				&(struct vt_control_visit){print_taken, say_missed, NULL});
	return VT_EXIT_OK;
}
