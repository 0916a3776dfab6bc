#define _GNU_SOURCE
/* vramtrace run: the program, unmodified, with libvramtrace.so preloaded. */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
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
#include "cli.h"
#include "commands.h"
#include "locate.h"
#include "options.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: vramtrace run [OPTIONS] -- COMMAND [ARGS...]\n\n"
		"Runs COMMAND with libvramtrace.so preloaded (prepended to LD_PRELOAD, keeping\n"
		"what is there). Every process of COMMAND that uses CUDA writes a JSON report\n"
		"at exit and prints a summary on stderr. vramtrace run exits with COMMAND's\n"
		"status as it is (139 stays an exit status); when a signal N ended COMMAND,\n"
		"vramtrace run ends by the same signal (a shell shows 128+N). SIGTERM, SIGINT,\n"
		"SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to vramtrace run are passed on to\n"
		"COMMAND, which it then waits for. Afterwards one line on stderr names the\n"
		"next command to run on the report.\n\n"
		"Options:\n"
		"  --simulate [CAPACITY]  run on the simulated device (no GPU needed): its\n"
		"                         libcuda, libcudart, libcupti and libnvidia-ml go\n"
		"                         first on the library path; CAPACITY (e.g. 24GiB,\n"
		"                         or 80GiB,40GiB for one per device) sets\n"
		"                         VRAMSIM_CAPACITY; as --simulate=CAPACITY, or the\n"
		"                         next argument when it is a size\n"
		"  -o, --output TEMPLATE  where reports go (VRAMTRACE_OUTPUT); %%p is the pid,\n"
		"                         %%h the host, %%r the rank; default vramtrace.%%p.json;\n"
		"                         a file that exists is refused before COMMAND starts\n"
		"                         (a template with %%p adds -1, -2 to a taken name)\n"
		"  -f, --force            replace an --output file that exists\n"
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
		"can tag and measure windows, and pytest loads the limit_vram gate\n"
		"(PYTEST_PLUGINS gets vramtrace.pytest).\n"
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
	bool force;
	char labels[4096];
};

static bool add_label(struct run_options *options, const char *label)
{
	const char *equals = strchr(label, '=');
	if (!equals || equals == label || strchr(label, ',')) {
		vt_diagnostic("vramtrace run: --label wants KEY=VALUE with a non-empty key and "
			      "no comma, not '%s'",
			      label);
		return false;
	}
	size_t used = strlen(options->labels);
	int wrote = snprintf(options->labels + used, sizeof(options->labels) - used, "%s%s",
			     used ? "," : "", label);
	if (wrote < 0 || (size_t)wrote >= sizeof(options->labels) - used) {
		vt_diagnostic("vramtrace run: too many labels");
		return false;
	}
	return true;
}

enum { OPT_SIMULATE = 256, OPT_OUTPUT, OPT_SOURCES, OPT_LABEL, OPT_NO_CACHE, OPT_FORCE };

static enum vt_size_reading read_capacity(const char *capacity, char *item, size_t size);

/* --simulate takes the next argument as its capacity only when it is one,
 * so that `--simulate -- ./app` and `--simulate ./app` still run ./app. */
static bool is_capacity(const char *next)
{
	char item[64];
	return next[0] >= '0' && next[0] <= '9' &&
	       (read_capacity(next, item, sizeof(item)) != VT_SIZE_NOT_A_SIZE ||
		vt_size_unitless(next));
}

static const struct vt_option run_options[] = {
	{"simulate", 0, VT_OPTION_OPTIONAL, OPT_SIMULATE, NULL, is_capacity},
	{"output", 'o', VT_OPTION_VALUE, OPT_OUTPUT, "TEMPLATE, e.g. vramtrace.%p.json", NULL},
	{"force", 'f', VT_OPTION_FLAG, OPT_FORCE, NULL, NULL},
	{"sources", 0, VT_OPTION_VALUE, OPT_SOURCES, "hooks, cupti or both", NULL},
	{"label", 0, VT_OPTION_VALUE, OPT_LABEL, "KEY=VALUE", NULL},
	{"no-framework-cache", 0, VT_OPTION_FLAG, OPT_NO_CACHE, NULL, NULL},
	{"help", 'h', VT_OPTION_FLAG, 'h', NULL, NULL},
};

static bool run_option(int id, const char *value, struct run_options *options)
{
	switch (id) {
	case OPT_SIMULATE:
		options->simulate = true;
		options->capacity = value;
		return true;
	case OPT_OUTPUT:
		if (!*value)
			vt_usage_error("run", "--output wants a path template, such as "
					      "vramtrace.%%p.json");
		options->output = value;
		return *value != '\0';
	case OPT_SOURCES:
		if (strcmp(value, "hooks") != 0 && strcmp(value, "cupti") != 0 &&
		    strcmp(value, "both") != 0) {
			vt_usage_error("run", "--sources wants hooks, cupti or both, not '%s'",
				       value);
			return false;
		}
		options->sources = value;
		return true;
	case OPT_LABEL: return add_label(options, value);
	case OPT_FORCE: options->force = true; return true;
	default: options->no_framework_cache = true; return true;
	}
}

/* Returns -1 to go on (with *command the command's first argument), or
 * the exit status to end with. */
static int parse(int argc, char **argv, struct run_options *options, int *command)
{
	struct vt_arguments arguments;
	vt_arguments_init(&arguments, "run", usage, argc, argv, run_options,
			  sizeof(run_options) / sizeof(run_options[0]));
	arguments.stop_at_operand = true;
	const char *value;
	for (int id; (id = vt_arguments_next(&arguments, &value)) != VT_ARGUMENT_END;) {
		if (id <= VT_ARGUMENT_ERROR)
			return vt_arguments_exit(id);
		if (id == VT_ARGUMENT_OPERAND) {
			*command = arguments.next - 1;
			return -1;
		}
		if (!run_option(id, value, options))
			return VT_EXIT_BAD_INPUT;
	}
	vt_usage_error("run", "no command given: vramtrace run [OPTIONS] -- COMMAND [ARGS...]");
	return VT_EXIT_BAD_INPUT;
}

/* A capacity, or one per device (80GiB,40GiB): VT_SIZE_OK, or what the
 * first item that is not one is, copied into item. */
static enum vt_size_reading read_capacity(const char *capacity, char *item, size_t size)
{
	char copy[512];
	snprintf(copy, sizeof(copy), "%s", capacity);
	char *save = NULL;
	enum vt_size_reading reading = VT_SIZE_NOT_A_SIZE;
	for (char *at = strtok_r(copy, ",", &save); at; at = strtok_r(NULL, ",", &save)) {
		uint64_t bytes;
		bool decimal;
		snprintf(item, size, "%s", at);
		reading = vt_read_size(at, UINT64_MAX, &bytes, &decimal);
		/* "2" would be a device of 2 bytes: surely two devices were meant. */
		if (reading == VT_SIZE_OK && (vt_size_unitless(at) || bytes == 0))
			reading = VT_SIZE_NOT_A_SIZE;
		if (reading != VT_SIZE_OK)
			return reading;
	}
	return reading;
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
		vt_diagnostic("vramtrace run: the simulated device is not installed beside this "
			      "vramtrace");
		return false;
	}
	char item[64];
	enum vt_size_reading reading =
		options->capacity ? read_capacity(options->capacity, item, sizeof(item))
				  : VT_SIZE_OK;
	if (reading == VT_SIZE_TOO_LARGE) {
		vt_diagnostic("vramtrace run: --simulate=%s: %s is too large: beyond %s",
			      options->capacity, item, vt_size_limit_text(UINT64_MAX));
		return false;
	}
	if (reading != VT_SIZE_OK) {
		vt_diagnostic(
			"vramtrace run: --simulate=%s: expected a capacity with its unit, such as "
			"80GiB, or one per device, 80GiB,40GiB; the number of devices is "
			"VRAMSIM_DEVICES (VRAMSIM_DEVICES=2 vramtrace run --simulate=80GiB -- "
			"...)",
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
		vt_diagnostic("vramtrace run: NVTX_INJECTION64_PATH is already %s; left in place, "
			      "so NVTX ranges will not become tags",
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

/* `import vramtrace` works in the command, and pytest loads the gate of
 * its own accord (PYTEST_PLUGINS), with no -p to remember. */
static bool set_up_python(void)
{
	char dir[PATH_MAX];
	if (!vt_locate_python(dir, sizeof(dir)))
		return true;
	const char *plugins = getenv("PYTEST_PLUGINS");
	bool listed = plugins && strstr(plugins, "vramtrace.pytest");
	return prepend_env("PYTHONPATH", dir, ':') &&
	       (listed || set_joined("PYTEST_PLUGINS", plugins, ',', "vramtrace.pytest"));
}

/* Each tensor its own allocation: the frameworks' caches off, and said so
 * in the report (VRAMTRACE_* variables are recorded). */
static bool set_up_no_cache(void)
{
	return setenv("PYTORCH_NO_CUDA_MEMORY_CACHING", "1", 1) == 0 &&
	       setenv("XLA_PYTHON_CLIENT_ALLOCATOR", "platform", 1) == 0 &&
	       setenv("VRAMTRACE_FRAMEWORK_CACHE", "off", 1) == 0;
}

/* The dynamic loader splits LD_PRELOAD at spaces and colons, so a library
 * under a path with a space (~/My Projects/vramtrace) was silently not
 * loaded: it is then preloaded by its name, found through LD_LIBRARY_PATH,
 * which splits at colons and semicolons only. A path with those has no
 * way in, and is refused. */
static bool set_up_preload(const char *library)
{
	if (!strchr(library, ' ') && !strchr(library, ':'))
		return prepend_env("LD_PRELOAD", library, ':');
	if (strpbrk(library, ":;")) {
		vt_diagnostic("vramtrace run: %s cannot be preloaded: the dynamic loader splits "
			      "LD_PRELOAD and LD_LIBRARY_PATH at ':' and ';'; build or install "
			      "vramtrace under a directory without them",
			      library);
		return false;
	}
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", library);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return prepend_env("LD_LIBRARY_PATH", dir, ':') &&
	       prepend_env("LD_PRELOAD", slash + 1, ':');
}

static bool set_up_environment(const struct run_options *options, const char *report_list)
{
	char library[PATH_MAX];
	if (!vt_locate_library(library, sizeof(library))) {
		vt_diagnostic("vramtrace run: libvramtrace.so is not installed beside this "
			      "vramtrace");
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
	return append_labels(options->labels) && set_up_preload(library) &&
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
		vt_diagnostic("vramtrace run: cannot run '%s': %s", command[0], strerror(error));
	else if (child > 0)
		*started = true;
	close(pipe_fds[0]);
	return child;
}

/* Returns the command's wait status, or -1. */
static int run_child(char **command, bool *started)
{
	pid_t child = start_child(command, started);
	if (child < 0) {
		vt_diagnostic("vramtrace run: cannot fork: %s", strerror(errno));
		return -1;
	}
	int status;
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	running_child = 0;
	return status;
}

/* Ends the way the command ended: with its exit status as it was (139 is
 * an exit status, not a crash), or by its signal, raised with the default
 * action and without a core file of the wrapper's own. */
static int end_as(int status)
{
	if (!WIFSIGNALED(status))
		return WEXITSTATUS(status);
	int signal_number = WTERMSIG(status);
	struct rlimit no_core = {0, 0};
	setrlimit(RLIMIT_CORE, &no_core);
	signal(signal_number, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, signal_number);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(signal_number);
	return 128 + signal_number; /* a signal whose default is to go on */
}

/* No report came back: a command a signal ended may have used CUDA and
 * died before it could write one (SIGKILL, say), so only what is known is
 * said. status is the command's wait status. */
static void say_no_report(int status)
{
	if (!WIFSIGNALED(status)) {
		vt_diagnostic("vramtrace: no process of the command used CUDA, so no report was "
			      "written");
		return;
	}
	const char *name = sigabbrev_np(WTERMSIG(status));
	if (name)
		vt_diagnostic("vramtrace: the command ended by SIG%s before any report was "
			      "written",
			      name);
	else
		vt_diagnostic("vramtrace: the command ended by signal %d before any report was "
			      "written",
			      WTERMSIG(status));
}

/* The reports the processes wrote, each path ended by a NUL; the count,
 * and the first into first. */
static unsigned read_reports(const char *report_list, char *first, size_t size)
{
	first[0] = '\0';
	FILE *list = fopen(report_list, "re");
	if (!list)
		return 0;
	unsigned count = 0;
	char *path = NULL;
	size_t capacity = 0;
	while (getdelim(&path, &capacity, '\0', list) > 0)
		if (count++ == 0)
			snprintf(first, size, "%s", path);
	free(path);
	fclose(list);
	return count;
}

/* Inside another `vramtrace run` (a traced script that runs it again), the
 * reports of this run are the outer run's too: each path is added to its
 * list as the library adds one (one write, never creating the list), so
 * that the outer run names them instead of saying no process used CUDA. */
static void pass_reports_on(const char *outer, const char *report_list)
{
	if (!outer[0] || strcmp(outer, report_list) == 0)
		return;
	FILE *list = fopen(report_list, "re");
	if (!list)
		return;
	int fd = open(outer, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	char *path = NULL;
	size_t capacity = 0;
	ssize_t length;
	while (fd >= 0 && (length = getdelim(&path, &capacity, '\0', list)) > 0)
		if (write(fd, path, (size_t)length) != length)
			break;
	if (fd >= 0)
		close(fd);
	free(path);
	fclose(list);
}

/* The list of reports goes in TMPDIR (else /tmp); when that cannot be
 * written, beside the reports. */
static int make_report_list(const struct run_options *options, char *path, size_t size)
{
	const char *tmpdir = getenv("TMPDIR");
	const char *dirs[2] = {tmpdir && *tmpdir ? tmpdir : "/tmp", "."};
	char report_dir[PATH_MAX] = ".";
	if (options->output && strrchr(options->output, '/'))
		snprintf(report_dir, sizeof(report_dir), "%.*s",
			 (int)(strrchr(options->output, '/') - options->output + 1),
			 options->output);
	dirs[1] = report_dir;
	int fd = -1, error = 0;
	for (int i = 0; i < 2 && fd < 0; i++) {
		snprintf(path, size, "%s/vramtrace-run.XXXXXX", dirs[i]);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd < 0 && i == 0)
			error = errno;
	}
	if (fd < 0) {
		vt_diagnostic(
			"vramtrace run: cannot create a temporary file in %s (%s) nor beside the "
			"reports: %s",
			dirs[0], strerror(error), strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

/* The directory the reports go to, when the template names one without
 * %-escapes, must be there and writable: else every process's report is
 * lost, and the command's run was for nothing (the library says so, and
 * run could only say that no process used CUDA). */
static bool output_directory_writable(const char *output)
{
	const char *slash = output ? strrchr(output, '/') : NULL;
	if (!slash)
		return true;
	char directory[PATH_MAX];
	snprintf(directory, sizeof(directory), "%.*s", (int)(slash - output + 1), output);
	if (strchr(directory, '%') || access(directory, W_OK | X_OK) == 0)
		return true;
	vt_diagnostic("vramtrace run: no report can be written in %s: %s", directory,
		      strerror(errno));
	return false;
}

/* A report path without %-escapes (from --output, else VRAMTRACE_OUTPUT)
 * that exists is not replaced unless --force says so: a later `check FILE`
 * must not read an old report. */
static bool output_free(const struct run_options *options)
{
	const char *output = options->output ? options->output : getenv("VRAMTRACE_OUTPUT");
	if (!output_directory_writable(output))
		return false;
	if (!output || strchr(output, '%') || access(output, F_OK) != 0)
		return true;
	/* Inside another run, VRAMTRACE_OUTPUT is that run's, checked there,
	 * and the file may be a report of its command's: a script that runs
	 * `vramtrace run` twice failed the second time. Each report gets a
	 * name of its own (-1, -2, ...), as for two processes of one run. */
	if (!options->output && getenv("VRAMTRACE_REPORT_LIST"))
		return true;
	if (!options->force) {
		vt_usage_error("run",
			       "%s exists; give --force to replace it, or a template with "
			       "%%p for a new file per run",
			       output);
		return false;
	}
	if (unlink(output) != 0) {
		vt_diagnostic("vramtrace run: cannot replace %s: %s", output, strerror(errno));
		return false;
	}
	return true;
}

/* Whether a CUDA driver can be loaded here at all. */
static bool driver_present(void)
{
	void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (driver)
		dlclose(driver);
	return driver != NULL;
}

/* path as a shell reads it back, into out: as it is when plain, else
 * single-quoted. */
static void print_quoted(FILE *out, const char *path, size_t length)
{
	bool plain = length > 0;
	for (size_t i = 0; i < length; i++)
		plain = plain && (isalnum((unsigned char)path[i]) || strchr("_./+-,=:@%", path[i]));
	if (plain) {
		fprintf(out, "%.*s", (int)length, path);
		return;
	}
	fputc('\'', out);
	for (size_t i = 0; i < length; i++)
		fputs(path[i] == '\'' ? "'\\''" : (char[]){path[i], '\0'}, out);
	fputc('\'', out);
}

/* This tool as it was started, for a next command that runs as printed:
 * the path it was run by (build/tools/vramtrace), or its name when the
 * shell found it on PATH. */
static void print_tool(FILE *out)
{
	const char *self = program_invocation_name;
	if (self && strchr(self, '/'))
		print_quoted(out, self, strlen(self));
	else
		fputs("vramtrace", out);
}

/* After the run: what was written, and the natural next command. */
static void after_run(const struct run_options *options, const char *report_list, int status)
{
	char first[4097];
	unsigned count = read_reports(report_list, first, sizeof(first));
	if (count == 0 && !options->simulate && !driver_present()) {
		vt_diagnostic("vramtrace run: no CUDA driver found (libcuda.so.1), so no "
			      "report was written; try --simulate");
		return;
	}
	if (count == 0) {
		say_no_report(status);
		return;
	}
	char *next = NULL;
	size_t next_length = 0;
	FILE *line = open_memstream(&next, &next_length);
	if (!line)
		return;
	print_tool(line);
	if (count > 1) {
		if (fclose(line) == 0)
			vt_diagnostic("vramtrace run: next: %s merge <the %u reports> -o "
				      "merged.json",
				      next, count);
		free(next);
		return;
	}
	size_t length = strlen(first);
	size_t stem = length > 5 && strcmp(first + length - 5, ".json") == 0 ? length - 5 : length;
	char page[4200];
	snprintf(page, sizeof(page), "%.*s.html", (int)stem, first);
	fputs(" report ", line);
	print_quoted(line, first, length);
	fputs(" --format html -o ", line);
	print_quoted(line, page, strlen(page));
	if (fclose(line) == 0)
		vt_diagnostic("vramtrace run: next: %s", next);
	free(next);
}

int vt_command_run(int argc, char **argv)
{
	struct run_options options = {0};
	int command = 0;
	int done = parse(argc, argv, &options, &command);
	if (done >= 0)
		return done;
	if (!output_free(&options))
		return VT_EXIT_BAD_INPUT;
	char report_list[PATH_MAX + 32];
	if (make_report_list(&options, report_list, sizeof(report_list)) != 0)
		return VT_EXIT_BAD_INPUT;
	char outer[PATH_MAX] = "";
	const char *listed = getenv("VRAMTRACE_REPORT_LIST");
	snprintf(outer, sizeof(outer), "%s", listed ? listed : "");
	bool started = false;
	int status = set_up_environment(&options, report_list) ? run_child(argv + command, &started)
							       : -1;
	if (started)
		after_run(&options, report_list, status);
	pass_reports_on(outer, report_list);
	unlink(report_list);
	return status < 0 ? 2 : end_as(status);
}
