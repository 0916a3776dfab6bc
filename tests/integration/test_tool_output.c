/* Where the tool's output goes and what reaches it: documents that keep
 * every piece (file names that are not UTF-8 escaped, never dropped),
 * -o onto a regular file, a symlink, a new path, a device or a FIFO, the
 * mode an output gets, and standard output that cannot be written. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static void copy_file(const char *from, const char *to)
{
	char command[2048];
	snprintf(command, sizeof(command), "cp '%s' '%s'", from, to);
	cr_assert_eq(system(command), 0);
}

static char *scratch(void)
{
	char *dir = strdup("/tmp/vt-out.XXXXXX");
	cr_assert(mkdtemp(dir));
	return dir;
}

/* Removes a scratch() directory, and frees its name. */
static void remove_scratch(char *dir)
{
	remove_tree(dir);
	free(dir);
}

/* A file name that is not UTF-8 went into merge's and diff's documents
 * through a json_pack that failed unchecked: merge dropped that rank and
 * exited 0, diff --format json wrote an empty line. */
Test(tool_output, file_names_that_are_not_utf8_are_kept_escaped)
{
	char *dir = scratch();
	char odd[600], plain[600], merged[600];
	snprintf(odd, sizeof(odd), "%s/r0\xff.json", dir);
	snprintf(plain, sizeof(plain), "%s/r1.json", dir);
	snprintf(merged, sizeof(merged), "%s/merged.json", dir);
	copy_file(fixture_path("rank0.json"), odd);
	copy_file(fixture_path("rank1.json"), plain);
	struct traced_run run;
	run_tool(&run, (char *[]){"merge", odd, plain, "-o", merged, NULL}, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	traced_run_free(&run);
	json_t *document = json_load_file(merged, 0, NULL);
	cr_assert(document);
	json_t *ranks = json_object_get(document, "ranks");
	cr_assert_eq(json_array_size(ranks), 2);
	char expected[640];
	snprintf(expected, sizeof(expected), "%s/r0\\xff.json", dir);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(ranks, 0), "file")),
			 expected);
	cr_assert_str_eq(
		json_string_value(json_object_get(json_object_get(document, "peak"), "min_rank")),
		"0");
	json_decref(document);

	run_tool(&run, (char *[]){"diff", odd, plain, "--format", "json", NULL}, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	document = json_loads(run.out, 0, NULL);
	cr_assert(document, "%s", run.out);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(document, "a"), "file")),
			 expected);
	json_decref(document);
	traced_run_free(&run);
	remove_scratch(dir);
}

static void report_to(const char *out)
{
	struct traced_run run;
	run_tool(
		&run,
		(char *[]){"report", (char *)fixture_path("minimal.json"), "-o", (char *)out, NULL},
		NULL);
	cr_assert_eq(run.status, 0, "%s: %s", out, run.err);
	cr_assert_str_eq(run.err, "");
	traced_run_free(&run);
}

static bool starts_with_report(const char *path)
{
	char head[16] = "";
	FILE *file = fopen(path, "r");
	cr_assert(file, "%s", path);
	cr_assert(fgets(head, sizeof(head), file));
	fclose(file);
	return strncmp(head, "command:", 8) == 0;
}

/* -o through a symlink replaced the link with a file; now the link stays
 * and its target is replaced, keeping its mode. */
Test(tool_output, a_symlink_is_written_through_and_a_file_keeps_its_mode)
{
	char *dir = scratch();
	char real[600], link[600];
	snprintf(real, sizeof(real), "%s/real.txt", dir);
	snprintf(link, sizeof(link), "%s/link.txt", dir);
	FILE *file = fopen(real, "w");
	fputs("old\n", file);
	fclose(file);
	cr_assert_eq(chmod(real, 0640), 0);
	cr_assert_eq(symlink("real.txt", link), 0);
	report_to(link);
	struct stat st;
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
	cr_assert_eq(stat(real, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0640, "mode %o", st.st_mode & 07777);
	cr_assert(starts_with_report(real));
	remove_scratch(dir);
}

/* A new file got 0600 whatever the umask; it follows the umask now. */
Test(tool_output, a_new_file_follows_the_umask)
{
	char *dir = scratch();
	static const struct {
		const char *mask;
		mode_t mode;
	} cases[] = {{"022", 0644}, {"077", 0600}, {"002", 0664}};
	for (size_t i = 0; i < 3; i++) {
		char command[2048], out[600];
		snprintf(out, sizeof(out), "%s/new%zu.txt", dir, i);
		snprintf(command, sizeof(command), "umask %s && '%s' report '%s' -o '%s'",
			 cases[i].mask, build_path("VT_TEST_TOOL"), fixture_path("minimal.json"),
			 out);
		cr_assert_eq(system(command), 0);
		struct stat st;
		cr_assert_eq(stat(out, &st), 0);
		cr_assert_eq(st.st_mode & 07777, cases[i].mode, "umask %s: mode %o", cases[i].mask,
			     st.st_mode & 07777);
	}
	remove_scratch(dir);
}

/* A FIFO was replaced by a regular file (and, as root, so was /dev/null);
 * a file that is not regular is written through now, and stays what it
 * was. */
Test(tool_output, a_fifo_is_written_through)
{
	char *dir = scratch();
	char fifo[600], copy[600];
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(copy, sizeof(copy), "%s/copy.txt", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	pid_t reader = fork();
	if (reader == 0) {
		execlp("sh", "sh", "-c", "exec cat \"$0\" > \"$1\"", fifo, copy, (char *)NULL);
		_exit(127);
	}
	report_to(fifo);
	struct stat st;
	cr_assert_eq(lstat(fifo, &st), 0);
	if (!S_ISFIFO(st.st_mode))
		kill(reader, SIGKILL); /* it waits for a writer that never came */
	int status;
	cr_assert_eq(waitpid(reader, &status, 0), reader);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
	cr_assert_eq(status, 0);
	cr_assert(starts_with_report(copy));
	remove_scratch(dir);
}

/* A link to /proc/self/fd/1 (what /dev/stdout is) writes to standard
 * output, wherever that goes, and the link stays. */
Test(tool_output, a_link_to_standard_output_writes_there)
{
	char *dir = scratch();
	char link[600];
	snprintf(link, sizeof(link), "%s/stdout", dir);
	cr_assert_eq(symlink("/proc/self/fd/1", link), 0);
	struct traced_run run;
	run_tool(&run, (char *[]){"report", (char *)fixture_path("minimal.json"), "-o", link, NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strncmp(run.out, "command: ./serve --batch 8\n", 27) == 0, "%s", run.out);
	traced_run_free(&run);
	struct stat st;
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
	run_tool(&run, (char *[]){"report", (char *)fixture_path("minimal.json"), "-o", dir, NULL},
		 NULL);
	cr_assert_eq(run.status, 2);
	char expected[700];
	snprintf(expected, sizeof(expected), "vramtrace report: cannot write %s: Is a directory\n",
		 dir);
	cr_assert_str_eq(run.err, expected);
	traced_run_free(&run);
	remove_scratch(dir);
}

/* The tool run by sh with its standard output redirected as given:
 * the exit status, and what it said on standard error into err. */
static int redirected(const char *arguments, const char *redirection, char *err, size_t size)
{
	char command[2048];
	snprintf(command, sizeof(command), "'%s' %s 2>&1 %s", build_path("VT_TEST_TOOL"), arguments,
		 redirection);
	FILE *pipe = popen(command, "r");
	cr_assert(pipe);
	size_t got = fread(err, 1, size - 1, pipe);
	err[got] = '\0';
	int status = pclose(pipe);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* check's verdict to a full disk or a closed descriptor exited 0 or 1
 * having printed nothing; every command's standard output is checked. */
Test(tool_output, standard_output_that_cannot_be_written_is_an_error)
{
	char arguments[1024], err[1024];
	snprintf(arguments, sizeof(arguments), "check '%s' --budget 1GiB",
		 fixture_path("minimal.json"));
	cr_assert_eq(redirected(arguments, ">/dev/full", err, sizeof(err)), 2);
	cr_assert_str_eq(err, "vramtrace check: cannot write to standard output: No space left on "
			      "device\n");
	snprintf(arguments, sizeof(arguments), "check '%s' --budget 1",
		 fixture_path("minimal.json"));
	cr_assert_eq(redirected(arguments, ">&-", err, sizeof(err)), 2);
	cr_assert_str_eq(err,
			 "vramtrace check: cannot write to standard output: Bad file descriptor\n");
	snprintf(arguments, sizeof(arguments), "report '%s' --format json",
		 fixture_path("minimal.json"));
	cr_assert_eq(redirected(arguments, ">/dev/full", err, sizeof(err)), 2);
	cr_assert_str_eq(err, "vramtrace report: cannot write to standard output: No space left "
			      "on device\n");
	cr_assert_eq(redirected("--version", ">/dev/full", err, sizeof(err)), 2);
	cr_assert_str_eq(err, "vramtrace --version: cannot write to standard output: No space "
			      "left on device\n");
}

/* Ranks' devices were numbered rank * 1000 + ordinal in a merged trace:
 * device 1000 of rank 0 and device 0 of rank 1 were one process. */
Test(tool_output, every_device_of_a_merged_trace_has_its_own_pid)
{
	char path[600], merged[] = "/tmp/vt-trace.XXXXXX";
	snprintf(path, sizeof(path), "%s/../golden/merged.json", build_path("VT_TEST_FIXTURES"));
	json_t *document = json_load_file(path, 0, NULL);
	cr_assert(document);
	json_object_set_new(report_at(document, "ranks/0/report/devices/0"), "ordinal",
			    json_integer(1000));
	int fd = mkstemp(merged);
	cr_assert(fd >= 0);
	cr_assert_eq(json_dumpfd(document, fd, 0), 0);
	close(fd);
	json_decref(document);
	struct traced_run run;
	run_tool(&run, (char *[]){"report", merged, "--format", "trace", NULL}, NULL);
	unlink(merged);
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *trace = json_loads(run.out, 0, NULL);
	cr_assert(trace);
	json_t *seen = json_object(), *event;
	size_t i, processes = 0;
	json_array_foreach (json_object_get(trace, "traceEvents"), i, event) {
		if (strcmp(json_string_value(json_object_get(event, "name")), "process_name") != 0)
			continue;
		char pid[32];
		snprintf(pid, sizeof(pid), "%lld",
			 (long long)json_integer_value(json_object_get(event, "pid")));
		cr_assert_null(json_object_get(seen, pid), "pid %s twice", pid);
		json_object_set_new(seen, pid, json_true());
		processes++;
	}
	cr_assert_eq(processes, 4);
	json_decref(seen);
	json_decref(trace);
	traced_run_free(&run);
}

/* fixture's report with a second device, device 1, copied from other's
 * device 0, and pid as its process. */
static char *two_devices(const char *fixture, const char *other, int pid, char *path)
{
	json_t *report = json_load_file(fixture_path(fixture), 0, NULL);
	json_t *copy = json_load_file(fixture_path(other), 0, NULL);
	cr_assert(report && copy);
	json_t *device = json_deep_copy(report_at(copy, "devices/0"));
	json_object_set_new(device, "ordinal", json_integer(1));
	json_array_append_new(json_object_get(report, "devices"), device);
	json_object_set_new(json_object_get(report, "run"), "pid", json_integer(pid));
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(json_dumpfd(report, fd, 0), 0);
	close(fd);
	json_decref(report);
	json_decref(copy);
	return path;
}

/* --format json of a merged report gave every device whatever --device
 * said, and the text's summary every device's bytes; now each rank keeps
 * that device alone, and the summary speaks of it. */
Test(tool_output, a_merged_report_in_json_keeps_the_device_asked_for)
{
	char a[] = "/tmp/vt-two.XXXXXX", b[] = "/tmp/vt-two.XXXXXX", merged[] = "/tmp/vt-m.XXXXXX";
	two_devices("minimal.json", "minimal_b.json", 1, a);
	two_devices("minimal_b.json", "minimal.json", 2, b);
	close(mkstemp(merged));
	struct traced_run run;
	run_tool(&run, (char *[]){"merge", a, b, "-o", merged, NULL}, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	traced_run_free(&run);
	run_tool(&run, (char *[]){"report", merged, "--format", "json", "--device", "1", NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *document = json_loads(run.out, 0, NULL);
	cr_assert(document, "%s", run.out);
	for (int r = 0; r < 2; r++) {
		char where[64];
		snprintf(where, sizeof(where), "ranks/%d/report/devices", r);
		cr_assert_eq(json_array_size(report_at(document, where)), 1);
		snprintf(where, sizeof(where), "ranks/%d/report/devices/0/ordinal", r);
		cr_assert_eq(report_int(document, where), 1);
	}
	cr_assert_eq(report_int(document, "ranks/0/peak_bytes"), 1500);
	cr_assert_eq(report_int(document, "ranks/1/peak_bytes"), 1000);
	cr_assert_eq(report_int(document, "peak/max_bytes"), 1500);
	cr_assert_eq(report_int(document, "peak/min_bytes"), 1000);
	cr_assert_str_eq(report_string(document, "ranks/0/file"), a);
	json_decref(document);
	traced_run_free(&run);
	/* the text's summary too: it gave 2.34 KiB of kv_cache, both devices' */
	run_tool(&run, (char *[]){"report", merged, "--device", "1", NULL}, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	const char *summary = "  kv_cache                 at the peaks: 1.17 KiB summed, 800 B at "
			      "most on one rank\n";
	cr_assert(strstr(run.out, summary), "%s", run.out);
	traced_run_free(&run);
	unlink(a);
	unlink(b);
	unlink(merged);
}

/* `report r.json -o r.json` (meant for r.html) replaced the report with
 * its text, which nothing reads back; every command that reads reports
 * refuses to write over one, through a link or standard input too, and
 * leaves it as it was. */
Test(tool_output, no_command_writes_over_a_report_it_reads)
{
	char *dir = scratch();
	char a[600], b[600], link[600];
	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(b, sizeof(b), "%s/b.json", dir);
	snprintf(link, sizeof(link), "%s/link.json", dir);
	copy_file(fixture_path("minimal.json"), a);
	copy_file(fixture_path("rank0.json"), b);
	cr_assert_eq(symlink("a.json", link), 0);
	char *const commands[][8] = {
		{"report", a, "-o", a, NULL},  {"report", a, "--format", "json", "-o", link, NULL},
		{"diff", b, a, "-o", a, NULL}, {"merge", b, a, "-o", a, NULL},
		{"fit", b, a, "-o", a, NULL},
	};
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		struct traced_run run;
		run_tool(&run, (char **)commands[i], NULL);
		char expected[2048];
		const char *out = strcmp(commands[i][2], "--format") == 0 ? link : a;
		snprintf(expected, sizeof(expected),
			 "vramtrace %s: -o %s would replace %s, a report it reads; give another "
			 "output file\n",
			 commands[i][0], out, a);
		cr_assert_eq(run.status, 2, "%s: %s", commands[i][0], run.err);
		cr_assert_str_eq(run.err, expected);
		traced_run_free(&run);
	}
	char arguments[1300], redirection[700], err[1024], expected[1024], command[2048];
	snprintf(arguments, sizeof(arguments), "report - -o '%s'", a);
	snprintf(redirection, sizeof(redirection), "<'%s'", a);
	cr_assert_eq(redirected(arguments, redirection, err, sizeof(err)), 2);
	snprintf(expected, sizeof(expected),
		 "vramtrace report: -o %s would replace standard input, a report it reads; give "
		 "another output file\n",
		 a);
	cr_assert_str_eq(err, expected);
	snprintf(command, sizeof(command), "cmp -s %s %s", a, fixture_path("minimal.json"));
	cr_assert_eq(system(command), 0, "the report was changed");
	remove_scratch(dir);
}

/* metrics --textfile '' wrote /vramtrace.prom, into the root directory,
 * every 15 s until stopped; an empty directory is refused at once. */
Test(tool_output, metrics_refuses_an_empty_textfile_directory)
{
	struct traced_run run;
	run_tool(&run, (char *[]){"metrics", "--textfile", "", "--count", "1", NULL}, NULL);
	cr_assert_eq(run.status, 2);
	cr_assert_str_eq(run.err, "vramtrace metrics: --textfile wants a directory, not '' (see "
				  "vramtrace metrics --help)\n");
	cr_assert_str_eq(run.out, "");
	traced_run_free(&run);
}

/* -o '' said "cannot write : No such file or directory". */
Test(tool_output, an_empty_output_name_is_named_as_the_mistake)
{
	struct traced_run run;
	run_tool(&run, (char *[]){"report", (char *)fixture_path("minimal.json"), "-o", "", NULL},
		 NULL);
	cr_assert_eq(run.status, 2);
	cr_assert_str_eq(
		run.err,
		"vramtrace report: -o wants a file name (- for standard output), not ''\n");
	cr_assert_str_eq(run.out, "");
	traced_run_free(&run);
}

/* Whether dir holds a name starting with prefix. */
static bool holds(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	cr_assert(d);
	bool found = false;
	for (struct dirent *entry; !found && (entry = readdir(d));)
		found = strncmp(entry->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return found;
}

/* A command ended by a signal while it wrote -o left its half-written
 * temporary file (out.html.XXXXXX) beside the output; it is removed, and
 * the command still ends by that signal. */
Test(tool_output, a_signal_while_writing_leaves_no_temporary_file, .timeout = 60)
{
	char *dir = scratch();
	char report[600], out[600];
	snprintf(report, sizeof(report), "%s/big.json", dir);
	snprintf(out, sizeof(out), "%s/out.html", dir);
	json_t *document = json_load_file(fixture_path("minimal.json"), 0, NULL);
	size_t length = 64u << 20; /* a page that takes a while to write */
	char *host = malloc(length + 1);
	memset(host, 'h', length);
	host[length] = '\0';
	json_object_set_new(json_object_get(document, "run"), "host", json_string(host));
	free(host);
	cr_assert_eq(json_dump_file(document, report, JSON_COMPACT), 0);
	json_decref(document);
	int status = 0;
	for (int attempt = 0; attempt < 5; attempt++) {
		pid_t pid = fork();
		if (pid == 0) {
			execl(build_path("VT_TEST_TOOL"), "vramtrace", "report", report, "--format",
			      "html", "-o", out, (char *)NULL);
			_exit(127);
		}
		pid_t ended = 0;
		while (!holds(dir, "out.html.") && (ended = waitpid(pid, &status, WNOHANG)) == 0)
			usleep(500);
		if (!ended) {
			kill(pid, SIGTERM);
			waitpid(pid, &status, 0);
		}
		if (WIFSIGNALED(status))
			break;
		unlink(out); /* it finished first: try again */
	}
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status %d", status);
	cr_assert(!holds(dir, "out.html"), "a temporary file was left");
	remove_scratch(dir);
}

/* A shrink to under a hundredth read x0.00, as if nothing were left: the
 * ratio keeps a significant digit, within its column. */
Test(tool_output, a_diff_ratio_under_a_hundredth_keeps_a_digit)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"diff", (char *)fixture_path("llm_bf16.json"),
			    (char *)fixture_path("minimal.json"), NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.out, "  device 0                                      18.29 GiB       "
				  "1000 B    -18.29 GiB   -100.0%  x5e-08\n"),
		  "%s", run.out);
	traced_run_free(&run);
}
