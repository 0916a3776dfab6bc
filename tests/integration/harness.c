#define _GNU_SOURCE
#include "harness.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *build_path(const char *variable)
{
	const char *value = getenv(variable);
	cr_assert(value && *value, "%s is not set: run the tests through meson", variable);
	return value;
}

const char *program_path(const char *name)
{
	static __thread char path[4096];
	snprintf(path, sizeof(path), "%s/%s", build_path("VT_TEST_PROGRAMS"), name);
	return path;
}

const char *python_program(const char *file_name)
{
	static __thread char path[4096];
	snprintf(path, sizeof(path), "%s", build_path("VT_TEST_PYTHON_SCRIPT"));
	char *slash = strrchr(path, '/');
	snprintf(slash + 1, sizeof(path) - (size_t)(slash + 1 - path), "%s", file_name);
	return path;
}

int marked_line_in(const char *path, const char *name)
{
	FILE *file = fopen(path, "re");
	cr_assert(file, "cannot open %s", path);
	char text[512], marker[80];
	snprintf(marker, sizeof(marker), "# MARK %s\n", name);
	int line = 0, found = 0;
	while (fgets(text, sizeof(text), file)) {
		line++;
		const char *at = strstr(text, marker);
		if (at && at[strlen(marker)] == '\0')
			found = line;
	}
	fclose(file);
	cr_assert(found, "no marker %s in %s", name, path);
	return found;
}

char *slurp(const char *path)
{
	FILE *file = fopen(path, "re");
	if (!file)
		return strdup("");
	char *text = NULL;
	size_t size = 0;
	FILE *buffer = open_memstream(&text, &size);
	char chunk[4096];
	for (size_t got; (got = fread(chunk, 1, sizeof(chunk), file)) > 0;)
		fwrite(chunk, 1, got, buffer);
	fclose(buffer);
	fclose(file);
	return text;
}

static void set_child_environment(const struct run_options *options, const char *dir)
{
	char output[512];
	snprintf(output, sizeof(output), "%s/%s", dir,
		 options->output_name ? options->output_name : "report.json");
	setenv("VRAMTRACE_OUTPUT", output, 1);
	setenv("VRAMTRACE_SUMMARY", "0", 1);
	unsetenv("LD_PRELOAD");
	if (options->preload)
		setenv("LD_PRELOAD", build_path("VT_TEST_LIBRARY"), 1);
	if (options->simulate)
		setenv("LD_LIBRARY_PATH", build_path("VT_TEST_SIM_DIR"), 1);
	else if (options->library_path)
		setenv("LD_LIBRARY_PATH", options->library_path, 1);
	for (const char *const *entry = options->env; entry && *entry; entry++)
		putenv(strdup(*entry));
}

static void redirect(const char *dir, const char *name, int fd)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(file, fd);
	close(file);
}

static bool ends_with(const char *name, const char *suffix)
{
	size_t length = strlen(name), suffix_length = strlen(suffix);
	return length >= suffix_length && strcmp(name + length - suffix_length, suffix) == 0;
}

/* A checkpoint being written when SIGKILL came stays a partial .tmp file
 * beside the last complete report; it is not a report. */
static void load_reports(struct traced_run *run)
{
	DIR *dir = opendir(run->dir);
	cr_assert(dir);
	for (struct dirent *entry; (entry = readdir(dir));) {
		if (strncmp(entry->d_name, "report", 6) != 0 || !strstr(entry->d_name, ".json") ||
		    ends_with(entry->d_name, ".tmp"))
			continue;
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", run->dir, entry->d_name);
		json_error_t error;
		json_t *report = json_load_file(path, 0, &error);
		cr_assert(report, "%s: %s at line %d", path, error.text, error.line);
		if (run->reports < sizeof(run->all) / sizeof(run->all[0]))
			run->all[run->reports] = json_incref(report);
		run->reports++;
		if (run->report)
			json_decref(run->report);
		run->report = report;
	}
	closedir(dir);
}

/* The program starts as from a shell in the foreground, every signal at its
 * default action and none blocked, whatever the test runner was started
 * with: a background job ignores SIGINT and SIGQUIT, Python SIGPIPE. */
static void default_signals(void)
{
	struct sigaction default_action = {.sa_handler = SIG_DFL};
	for (int number = 1; number < NSIG; number++)
		sigaction(number, &default_action, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

void traced_run(struct traced_run *run, const struct run_options *options, char *const argv[])
{
	memset(run, 0, sizeof(*run));
	snprintf(run->dir, sizeof(run->dir), "/tmp/vramtrace-test.XXXXXX");
	cr_assert(mkdtemp(run->dir));
	pid_t child = fork();
	cr_assert(child >= 0);
	if (child == 0) {
		set_child_environment(options, run->dir);
		default_signals();
		/* Where core files are on, each run's goes to its own directory:
		 * the kernel replaces a "core" only by a new one made with
		 * O_EXCL, and of two dumps at once in one directory (tests run
		 * side by side) the second is not written nor flagged in the
		 * wait status, which the tests compare. */
		if (chdir(run->dir) != 0)
			_exit(127);
		redirect(run->dir, "stdout", STDOUT_FILENO);
		redirect(run->dir, "stderr", STDERR_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	int status;
	cr_assert(waitpid(child, &status, 0) == child);
	run->status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	run->wait_status = status;
	char path[512];
	snprintf(path, sizeof(path), "%s/stdout", run->dir);
	run->out = slurp(path);
	snprintf(path, sizeof(path), "%s/stderr", run->dir);
	run->err = slurp(path);
	load_reports(run);
}

unsigned count_of(const char *text, const char *needle)
{
	unsigned count = 0;
	for (const char *at = text; (at = strstr(at, needle)); at += strlen(needle))
		count++;
	return count;
}

void remove_tree(const char *dir)
{
	char command[600];
	snprintf(command, sizeof(command), "rm -rf '%s'", dir);
	cr_assert_eq(system(command), 0);
}

void traced_run_free(struct traced_run *run)
{
	char command[512];
	snprintf(command, sizeof(command), "rm -rf '%s'", run->dir);
	int ignored = system(command);
	(void)ignored;
	free(run->out);
	free(run->err);
	if (run->report)
		json_decref(run->report);
	for (unsigned i = 0; i < run->reports && i < sizeof(run->all) / sizeof(run->all[0]); i++)
		json_decref(run->all[i]);
}

void trace_program(struct traced_run *run, const char *program, const char *const *env)
{
	struct run_options options = {.preload = true, .simulate = true, .env = env};
	char *argv[] = {(char *)program_path(program), NULL};
	traced_run(run, &options, argv);
	cr_assert_eq(run->status, 0, "%s exited %d: %s", program, run->status, run->err);
	cr_assert(run->report, "%s wrote no report: %s", program, run->err);
}

json_t *report_at(json_t *report, const char *path)
{
	char copy[256];
	snprintf(copy, sizeof(copy), "%s", path);
	json_t *node = report;
	char *save = NULL;
	for (char *part = strtok_r(copy, "/", &save); part && node;
	     part = strtok_r(NULL, "/", &save)) {
		char *end;
		long index = strtol(part, &end, 10);
		node = *end == '\0' && json_is_array(node) ? json_array_get(node, (size_t)index)
							   : json_object_get(node, part);
	}
	cr_assert(node, "no %s in the report", path);
	return node;
}

int64_t report_int(json_t *report, const char *path)
{
	json_t *node = report_at(report, path);
	cr_assert(json_is_integer(node), "%s is not an integer", path);
	return json_integer_value(node);
}

const char *report_string(json_t *report, const char *path)
{
	json_t *node = report_at(report, path);
	cr_assert(json_is_string(node), "%s is not a string", path);
	return json_string_value(node);
}

json_t *report_entry(json_t *report, const char *path, const char *key, const char *name)
{
	size_t i;
	json_t *entry;
	json_array_foreach (report_at(report, path), i, entry) {
		json_t *value = json_object_get(entry, key);
		if (json_is_string(value) && strcmp(json_string_value(value), name) == 0)
			return entry;
	}
	cr_assert_fail("no %s %s in %s", key, name, path);
	return NULL;
}

json_t *report_kind(json_t *report, const char *owner, const char *kind)
{
	char path[64];
	snprintf(path, sizeof(path), "%s/kinds", owner);
	return report_entry(report, path, "kind", kind);
}

json_t *report_tag(json_t *report, const char *owner, const char *tag)
{
	char path[64];
	snprintf(path, sizeof(path), "%s/tags", owner);
	return report_entry(report, path, "tag", tag);
}

void hostile(struct traced_run *run, const char *mode, const char *arg, const char *const *env)
{
	struct run_options options = {.preload = true, .simulate = true, .env = env};
	traced_run(run, &options,
		   (char *[]){(char *)program_path("hostile"), (char *)mode, (char *)arg, NULL});
}

void run_signals(struct traced_run *run, bool preload, char *mode, char *arg, char *extra)
{
	struct run_options options = {.preload = preload, .simulate = true};
	traced_run(run, &options,
		   (char *[]){(char *)program_path("signals"), mode, arg, extra, NULL});
}

void same_with_a_report(char *mode, char *arg, char *extra, const char *ended_by, int64_t peak)
{
	struct traced_run with, without;
	run_signals(&without, false, mode, arg, extra);
	run_signals(&with, true, mode, arg, extra);
	cr_assert_eq(with.wait_status, without.wait_status, "%s %s %s: %#x, not %#x: %s", mode, arg,
		     extra, with.wait_status, without.wait_status, with.err);
	cr_assert_str_eq(with.out, without.out, "%s %s", mode, arg);
	cr_assert_eq(with.reports, 1, "%s %s %s: %u reports: %s", mode, arg, extra, with.reports,
		     with.err);
	cr_assert_str_eq(report_string(with.report, "run/ended_by"), ended_by, "%s %s", mode, arg);
	cr_assert_eq(report_int(with.report, "devices/0/peak/bytes"), peak, "%s %s", mode, arg);
	traced_run_free(&with);
	traced_run_free(&without);
}

void run_both(struct both *runs, const char *program, const char *mode, const char *argument,
	      const char *const *env)
{
	struct run_options options = {.preload = true, .simulate = true, .env = env};
	char *argv[] = {(char *)program_path(program), (char *)mode, (char *)argument, NULL};
	traced_run(&runs->with, &options, argv);
	options.preload = false;
	traced_run(&runs->without, &options, argv);
}

void free_both(struct both *runs)
{
	traced_run_free(&runs->with);
	traced_run_free(&runs->without);
}

/* The whole of a file the program wrote in its run's directory; NULL when
 * there is none. */
static char *run_file(const struct traced_run *run, const char *name, size_t *length)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", run->dir, name);
	FILE *file = fopen(path, "re");
	if (!file)
		return NULL;
	char *text = NULL;
	FILE *buffer = open_memstream(&text, length);
	char chunk[4096];
	for (size_t got; (got = fread(chunk, 1, sizeof(chunk), file)) > 0;)
		fwrite(chunk, 1, got, buffer);
	fclose(buffer);
	fclose(file);
	return text;
}

void same_file(const struct both *runs, const char *name)
{
	size_t with_length = 0, without_length = 0;
	char *with = run_file(&runs->with, name, &with_length);
	char *without = run_file(&runs->without, name, &without_length);
	cr_assert(without, "the program wrote %s", name);
	cr_assert(with, "%s is missing under vramtrace", name);
	cr_assert_eq(with_length, without_length, "%s: %zu bytes, %zu without vramtrace", name,
		     with_length, without_length);
	cr_assert(memcmp(with, without, with_length) == 0, "%s differs", name);
	free(with);
	free(without);
}

void same_behaviour(const struct both *runs)
{
	cr_assert_eq(runs->with.status, runs->without.status, "%s", runs->with.err);
	cr_assert_str_eq(runs->with.out, runs->without.out);
}

void no_leftovers(const struct traced_run *run)
{
	DIR *dir = opendir(run->dir);
	cr_assert(dir);
	for (struct dirent *entry; (entry = readdir(dir));)
		cr_assert(!strstr(entry->d_name, ".tmp"), "%s was left behind", entry->d_name);
	closedir(dir);
}

void run_both_with_summary(const char *program, const char *argument, struct traced_run *with,
			   struct traced_run *without)
{
	/* With the summary on: the notes that come with it are checked. */
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL},
	};
	char *argv[] = {(char *)program_path(program), (char *)argument, NULL};
	traced_run(with, &options, argv);
	options.preload = false;
	traced_run(without, &options, argv);
}

void run_tool_with(struct traced_run *run, char **args, const struct run_options *options)
{
	char *argv[40] = {(char *)build_path("VT_TEST_TOOL")};
	size_t n = 1;
	for (; args[n - 1] && n < 39; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	traced_run(run, options, argv);
}

void run_tool(struct traced_run *run, char **args, const char *const *env)
{
	struct run_options options = {.env = env};
	run_tool_with(run, args, &options);
}

const char *fixture_path(const char *name)
{
	static __thread char path[4][512];
	static __thread int next;
	char *out = path[next++ % 4];
	snprintf(out, 512, "%s/%s", build_path("VT_TEST_FIXTURES"), name);
	return out;
}

json_t *load_fixture(const char *name)
{
	json_t *report = json_load_file(fixture_path(name), 0, NULL);
	cr_assert(report, "%s", name);
	return report;
}

char *written_report(json_t *document)
{
	char *path = strdup("/tmp/vt-report.XXXXXX.json");
	int fd = mkstemps(path, 5);
	cr_assert(fd >= 0);
	cr_assert_eq(json_dumpfd(document, fd, JSON_COMPACT), 0);
	close(fd);
	json_decref(document);
	return path;
}
