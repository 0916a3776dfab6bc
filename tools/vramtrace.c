/* The vramtrace tool: one binary, one subcommand per file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "options.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{"run", vt_command_run, "run a command with vramtrace loaded and report its GPU memory"},
	{"report", vt_command_report, "render a report: text, json, folded, trace or html"},
	{"diff", vt_command_diff, "compare two reports by device, kind, tag and stack"},
	{"check", vt_command_check, "check a report's peak against a memory budget"},
	{"merge", vt_command_merge, "combine per-process (rank) reports into one"},
	{"fit", vt_command_fit,
	 "fit runs at several settings; predict the peak, solve for a budget"},
	{"ps", vt_command_ps, "list the running processes traced by vramtrace"},
	{"snapshot", vt_command_snapshot, "a report of this moment from a running process"},
	{"top", vt_command_top, "a live view of a running process's GPU memory"},
	{"metrics", vt_command_metrics, "OpenMetrics of running processes, for Prometheus"},
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: vramtrace COMMAND [OPTIONS]\n\n"
		     "Shows where GPU memory goes in any CUDA program.\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n`vramtrace COMMAND --help` describes each command.\n"
		     "Options:\n  -h, --help     show this help\n"
		     "  -V, --version  show the version\n\n"
		     "Exit status: that of the command; 2 for bad input or usage.\n");
}

/* Every command's standard output, checked in one place once it is done:
 * a verdict that never reached it (a full disk, a closed descriptor) is an
 * error, exit 2, never a silent 0 or 1. */
static int written_out(const char *command, int status)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	/* an earlier write failed: a closed descriptor still says so */
	if (!errno)
		(void)!write(STDOUT_FILENO, "", 0);
	vt_diagnostic("vramtrace %s: cannot write to standard output: %s", command,
		      strerror(errno ? errno : EIO));
	return VT_EXIT_BAD_INPUT;
}

int main(int argc, char **argv)
{
	vt_escape_stderr();
	if (argc < 2) {
		char names[256] = "";
		size_t used = 0;
		for (size_t i = 0;
		     i < sizeof(commands) / sizeof(commands[0]) && used < sizeof(names); i++)
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s %s",
						 i ? "," : "", commands[i].name);
		vt_diagnostic("vramtrace: give a command:%s (see vramtrace --help)", names);
		return 2;
	}
	const char *name = argv[1];
	if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0) {
		usage(stdout);
		return written_out("--help", 0);
	}
	if (strcmp(name, "-V") == 0 || strcmp(name, "--version") == 0) {
		printf("vramtrace %s\n", VRAMTRACE_VERSION);
		return written_out("--version", 0);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return written_out(name, commands[i].run(argc - 1, argv + 1));
	const char *guess =
		vt_closest_name(name, strlen(name), &commands[0].name,
				sizeof(commands) / sizeof(commands[0]), sizeof(commands[0]));
	if (guess)
		vt_diagnostic("vramtrace: unknown command '%s'; did you mean %s? (see vramtrace "
			      "--help)",
			      name, guess);
	else
		vt_diagnostic("vramtrace: unknown command '%s' (see vramtrace --help)", name);
	return 2;
}
