/* vramtrace ps: the processes of this user traced by vramtrace now, each
 * with its devices' live and peak bytes, from a snapshot of each. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

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

/* How many processes to ask at once: as many sockets as may be open,
 * the limit raised to its ceiling, less a few for the tool's own files. */
static size_t sockets_at_once(void)
{
	struct rlimit limit;
	if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
		return 64;
	if (limit.rlim_cur < limit.rlim_max) {
		limit.rlim_cur = limit.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &limit) != 0)
			getrlimit(RLIMIT_NOFILE, &limit);
	}
	return limit.rlim_cur > MAX_PROCESSES + 32 ? MAX_PROCESSES
	       : limit.rlim_cur > 96               ? (size_t)limit.rlim_cur - 32
						   : 64;
}

/* The rows of n processes, all asked at once, in their order; one that
 * does not answer is said on stderr. */
static void list_some(const pid_t *pids, size_t n)
{
	static struct vt_control_answer answers[MAX_PROCESSES];
	vt_control_ask_all(pids, n, "snapshot", answers);
	for (size_t i = 0; i < n; i++) {
		struct vt_report_file report;
		char error[1024];
		if (!answers[i].ok) {
			vt_diagnostic("vramtrace ps: %s", answers[i].error);
			continue;
		}
		if (!vt_control_load_snapshot(pids[i], &report, &answers[i].data,
					      &answers[i].length, error, sizeof(error))) {
			vt_diagnostic("vramtrace ps: %s", error);
			continue;
		}
		print_row(pids[i], &report.report);
		vt_report_close(&report);
		free(answers[i].data);
	}
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
	size_t at_once = sockets_at_once();
	for (size_t first = 0; first < (size_t)count; first += at_once) {
		size_t n = (size_t)count - first < at_once ? (size_t)count - first : at_once;
		list_some(pids + first, n);
	}
	return VT_EXIT_OK;
}
