#define _GNU_SOURCE
/* vramtrace run: the program, unmodified, with libvramtrace.so preloaded. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/core/size.h"
#include "commands.h"
#include "locate.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: vramtrace run [OPTIONS] -- COMMAND [ARGS...]\n\n"
		"Runs COMMAND with libvramtrace.so preloaded (prepended to LD_PRELOAD, keeping\n"
		"what is there). Every process of COMMAND that uses CUDA writes a JSON report\n"
		"at exit and prints a summary on stderr. vramtrace run exits with COMMAND's\n"
		"status; when a signal N ended COMMAND, vramtrace run ends by the same signal\n"
		"(a shell shows 128+N). SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2\n"
		"sent to vramtrace run are passed on to COMMAND, which it then waits for.\n\n"
		"Options:\n"
		"  --simulate[=CAPACITY]  run on the simulated device (no GPU needed): its\n"
		"                         libcuda, libcudart, libcupti and libnvidia-ml go\n"
		"                         first on the library path; CAPACITY (e.g. 24GiB,\n"
		"                         or 80GiB,40GiB for one per device) sets\n"
		"                         VRAMSIM_CAPACITY\n"
		"  --output TEMPLATE      where reports go (VRAMTRACE_OUTPUT); %%p is the pid,\n"
		"                         %%h the host, %%r the rank; default vramtrace.%%p.json\n"
		"  --sources WHICH        what records allocations (VRAMTRACE_SOURCES): hooks\n"
		"                         (the default), cupti, or both; when CUPTI is held\n"
		"                         by a profiler, the hooks record, with a warning\n"
		"  --label KEY=VALUE      record a label in the report's run section (repeat\n"
		"                         for more); added to VRAMTRACE_LABEL\n"
		"  --no-framework-cache   turn the frameworks' caching allocators off, so each\n"
		"                         tensor is its own allocation with its own Python\n"
		"                         line (PYTORCH_NO_CUDA_MEMORY_CACHING=1,\n"
		"                         XLA_PYTHON_CLIENT_ALLOCATOR=platform); recorded\n"
		"                         in the report\n"
		"  -h, --help             show this help\n\n"
		"NVTX ranges become tags: NVTX_INJECTION64_PATH is set to libvramtrace.so\n"
		"unless another injection is already set, which is kept (with a warning).\n"
		"The vramtrace Python module is importable (PYTHONPATH), so Python programs\n"
		"can tag and measure windows, and pytest takes `-p vramtrace.pytest`.\n"
		"Programs built with AddressSanitizer run too: ASAN_OPTIONS gets\n"
		"verify_asan_link_order=0 unless it sets that itself.\n\n"
		"Environment of the simulated device: VRAMSIM_DEVICES (default 1),\n"
		"VRAMSIM_CAPACITY (80GiB), VRAMSIM_CONTEXT_BYTES (512MiB),\n"
		"VRAMSIM_GRANULARITY (2MiB).\n");
}

struct run_options {
	bool simulate;
	bool no_framework_cache;
	const char *capacity;
	const char *output;
	const char *sources;
	char labels[4096];
};

static bool add_label(struct run_options *options, const char *label)
{
	const char *equals = strchr(label, '=');
	if (!equals || equals == label || strchr(label, ',')) {
		fprintf(stderr,
			"vramtrace run: --label wants KEY=VALUE with a non-empty key and "
			"no comma, not '%s'\n",
			label);
		return false;
	}
	size_t used = strlen(options->labels);
	int wrote = snprintf(options->labels + used, sizeof(options->labels) - used, "%s%s",
			     used ? "," : "", label);
	if (wrote < 0 || (size_t)wrote >= sizeof(options->labels) - used) {
		fprintf(stderr, "vramtrace run: too many labels\n");
		return false;
	}
	return true;
}

/* Returns -1 to go on, or the exit status to end with. */
static int parse(int argc, char **argv, struct run_options *options)
{
	enum { OPT_SIMULATE = 256, OPT_OUTPUT, OPT_SOURCES, OPT_LABEL, OPT_NO_CACHE };
	static const struct option long_options[] = {
		{"simulate", optional_argument, NULL, OPT_SIMULATE},
		{"output", required_argument, NULL, OPT_OUTPUT},
		{"sources", required_argument, NULL, OPT_SOURCES},
		{"label", required_argument, NULL, OPT_LABEL},
		{"no-framework-cache", no_argument, NULL, OPT_NO_CACHE},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	opterr = 0;
	optind = 1;
	for (int c; (c = getopt_long(argc, argv, "+h", long_options, NULL)) != -1;) {
		switch (c) {
		case OPT_SIMULATE:
			options->simulate = true;
			options->capacity = optarg;
			break;
		case OPT_OUTPUT:
			if (!*optarg) {
				fprintf(stderr,
					"vramtrace run: --output wants a path template, such "
					"as vramtrace.%%p.json\n");
				return 2;
			}
			options->output = optarg;
			break;
		case OPT_SOURCES:
			if (strcmp(optarg, "hooks") != 0 && strcmp(optarg, "cupti") != 0 &&
			    strcmp(optarg, "both") != 0) {
				fprintf(stderr,
					"vramtrace run: --sources wants hooks, cupti or both, not "
					"'%s'\n",
					optarg);
				return 2;
			}
			options->sources = optarg;
			break;
		case OPT_LABEL:
			if (!add_label(options, optarg))
				return 2;
			break;
		case OPT_NO_CACHE: options->no_framework_cache = true; break;
		case 'h': usage(stdout); return 0;
		default:
			fprintf(stderr, "vramtrace run: unknown or incomplete option '%s'\n",
				argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "vramtrace run: no command given\n");
		usage(stderr);
		return 2;
	}
	return -1;
}

static bool valid_capacity(const char *capacity)
{
	char copy[512];
	snprintf(copy, sizeof(copy), "%s", capacity);
	char *save = NULL;
	bool any = false;
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		uint64_t bytes;
		if (!vt_size_parse(item, &bytes) || bytes == 0)
			return false;
		any = true;
	}
	return any;
}

/* Sets name to first, joined by separator to second when both are there. */
static bool set_joined(const char *name, const char *first, char separator, const char *second)
{
	bool has_first = first && *first, has_second = second && *second;
	if (!has_first || !has_second)
		return setenv(name, has_first ? first : has_second ? second : "", 1) == 0;
	size_t size = strlen(first) + strlen(second) + 2;
	char *joined = malloc(size);
	if (!joined)
		return false;
	snprintf(joined, size, "%s%c%s", first, separator, second);
	bool ok = setenv(name, joined, 1) == 0;
	free(joined);
	return ok;
}

/* value goes in front of what name already holds. */
static bool prepend_env(const char *name, const char *value, char separator)
{
	return set_joined(name, value, separator, getenv(name));
}

/* Labels given here follow those already in VRAMTRACE_LABEL. */
static bool append_labels(const char *labels)
{
	return !*labels || set_joined("VRAMTRACE_LABEL", getenv("VRAMTRACE_LABEL"), ',', labels);
}

static bool set_up_simulation(const struct run_options *options)
{
	char dir[PATH_MAX];
	if (!vt_locate_simulator(dir, sizeof(dir))) {
		fprintf(stderr, "vramtrace run: the simulated device is not installed beside this "
				"vramtrace\n");
		return false;
	}
	if (options->capacity && !valid_capacity(options->capacity)) {
		fprintf(stderr,
			"vramtrace run: --simulate=%s: expected sizes such as 80GiB or "
			"80GiB,40GiB\n",
			options->capacity);
		return false;
	}
	if (options->capacity && setenv("VRAMSIM_CAPACITY", options->capacity, 1) != 0)
		return false;
	return prepend_env("LD_LIBRARY_PATH", dir, ':');
}

/* NVTX honours one injection library: vramtrace's, unless another (Nsight,
 * CUPTI) is already there, which is left in place. */
static bool set_up_nvtx(const char *library)
{
	const char *current = getenv("NVTX_INJECTION64_PATH");
	if (!current || !*current)
		return setenv("NVTX_INJECTION64_PATH", library, 1) == 0;
	if (strcmp(current, library) != 0)
		fprintf(stderr,
			"vramtrace run: NVTX_INJECTION64_PATH is already %s; left in place, "
			"so NVTX ranges will not become tags\n",
			current);
	return true;
}

/* A program built with AddressSanitizer insists that its runtime come first
 * among the preloads; vramtrace does not disturb it, so the check is off. */
static bool set_up_sanitizers(void)
{
	const char *options = getenv("ASAN_OPTIONS");
	if (options && strstr(options, "verify_asan_link_order"))
		return true;
	return set_joined("ASAN_OPTIONS", options, ':', "verify_asan_link_order=0");
}

/* `import vramtrace` works in the command, and `-p vramtrace.pytest`. */
static bool set_up_python(void)
{
	char dir[PATH_MAX];
	return !vt_locate_python(dir, sizeof(dir)) || prepend_env("PYTHONPATH", dir, ':');
}

/* Each tensor its own allocation: the frameworks' caches off, and said so
 * in the report (VRAMTRACE_* variables are recorded). */
static bool set_up_no_cache(void)
{
	return setenv("PYTORCH_NO_CUDA_MEMORY_CACHING", "1", 1) == 0 &&
	       setenv("XLA_PYTHON_CLIENT_ALLOCATOR", "platform", 1) == 0 &&
	       setenv("VRAMTRACE_FRAMEWORK_CACHE", "off", 1) == 0;
}

static bool set_up_environment(const struct run_options *options, const char *report_list)
{
	char library[PATH_MAX];
	if (!vt_locate_library(library, sizeof(library))) {
		fprintf(stderr, "vramtrace run: libvramtrace.so is not installed beside this "
				"vramtrace\n");
		return false;
	}
	if (options->simulate && !set_up_simulation(options))
		return false;
	if (options->output && setenv("VRAMTRACE_OUTPUT", options->output, 1) != 0)
		return false;
	if (options->sources && setenv("VRAMTRACE_SOURCES", options->sources, 1) != 0)
		return false;
	if (!set_up_nvtx(library) || !set_up_sanitizers() || !set_up_python() ||
	    (options->no_framework_cache && !set_up_no_cache()))
		return false;
	return append_labels(options->labels) && prepend_env("LD_PRELOAD", library, ':') &&
	       setenv("VRAMTRACE_REPORT_LIST", report_list, 1) == 0;
}

/* Signals sent to the wrapper alone go on to the command, which decides
 * how to end; the wrapper waits for it. A terminal's signals already reach
 * the whole foreground group, the command included, and are not sent
 * twice. */
static const int forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
#define FORWARDED_COUNT (sizeof(forwarded) / sizeof(forwarded[0]))

static volatile pid_t running_child;

static void forward(int signal_number, siginfo_t *info, void *context)
{
	(void)context;
	if (info->si_code != SI_KERNEL && running_child > 0)
		kill(running_child, signal_number);
}

static void block_forwarded(sigset_t *previous)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < FORWARDED_COUNT; i++)
		sigaddset(&set, forwarded[i]);
	sigprocmask(SIG_BLOCK, &set, previous);
}

static void install_forwarding(void)
{
	struct sigaction action;
	memset(&action, 0, sizeof(action));
	action.sa_sigaction = forward;
	action.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&action.sa_mask);
	for (size_t i = 0; i < FORWARDED_COUNT; i++)
		sigaction(forwarded[i], &action, NULL);
}

/* The child reports a failed exec through a close-on-exec pipe, so that
 * "could not start" is told apart from "ran and exited 127". */
static pid_t start_child(char **command, bool *started)
{
	int pipe_fds[2];
	*started = false;
	if (pipe2(pipe_fds, O_CLOEXEC) != 0)
		return -1;
	sigset_t previous;
	block_forwarded(&previous);
	pid_t child = fork();
	if (child == 0) {
		sigprocmask(SIG_SETMASK, &previous, NULL);
		close(pipe_fds[0]);
		execvp(command[0], command);
		int error = errno;
		ssize_t ignored = write(pipe_fds[1], &error, sizeof(error));
		(void)ignored;
		_exit(error == ENOENT ? 127 : 126);
	}
	running_child = child;
	install_forwarding();
	sigprocmask(SIG_SETMASK, &previous, NULL);
	close(pipe_fds[1]);
	int error = 0;
	if (child > 0 && read(pipe_fds[0], &error, sizeof(error)) == (ssize_t)sizeof(error))
		fprintf(stderr, "vramtrace run: cannot run '%s': %s\n", command[0],
			strerror(error));
	else if (child > 0)
		*started = true;
	close(pipe_fds[0]);
	return child;
}

/* Returns the command's exit status, 128+N for a signal N, or -1. */
static int run_child(char **command, bool *started)
{
	pid_t child = start_child(command, started);
	if (child < 0) {
		fprintf(stderr, "vramtrace run: cannot fork: %s\n", strerror(errno));
		return -1;
	}
	int status;
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	running_child = 0;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Ends the way the command ended: by its signal, without a core file of
 * the wrapper's own, else with its status. */
static int end_as(int status)
{
	if (status <= 128)
		return status;
	int signal_number = status - 128;
	struct rlimit no_core = {0, 0};
	setrlimit(RLIMIT_CORE, &no_core);
	signal(signal_number, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, signal_number);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(signal_number);
	return status;
}

static unsigned count_reports(const char *report_list)
{
	FILE *list = fopen(report_list, "re");
	if (!list)
		return 0;
	unsigned count = 0;
	for (int c; (c = fgetc(list)) != EOF;)
		count += c == '\n';
	fclose(list);
	return count;
}

int vt_command_run(int argc, char **argv)
{
	struct run_options options = {0};
	int done = parse(argc, argv, &options);
	if (done >= 0)
		return done;
	char report_list[] = "/tmp/vramtrace-run.XXXXXX";
	int fd = mkstemp(report_list);
	if (fd < 0) {
		fprintf(stderr, "vramtrace run: cannot create a temporary file: %s\n",
			strerror(errno));
		return 2;
	}
	close(fd);
	bool started = false;
	int status =
		set_up_environment(&options, report_list) ? run_child(argv + optind, &started) : -1;
	if (started && count_reports(report_list) == 0)
		fprintf(stderr, "vramtrace: no process of the command used CUDA, so no report was "
				"written\n");
	unlink(report_list);
	return status < 0 ? 2 : end_as(status);
}
