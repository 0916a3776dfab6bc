/* The program's descriptors stay its own (tests/integration/programs/
 * hostile.c, limits.c): a daemon that closed stdio gets fd 0 for its own
 * first file, a stderr pipe nobody reads changes nothing, descriptors the
 * program reopened are never the tracer's, and under RLIMIT_NOFILE the
 * tracer gives way; the program's files byte for byte as without. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

static char *read_text(const char *path)
{
	static char text[4096];
	FILE *file = fopen(path, "re");
	if (!file)
		return NULL;
	size_t got = fread(text, 1, sizeof(text) - 1, file);
	text[got] = '\0';
	fclose(file);
	return text;
}

Test(descriptors, a_daemon_that_closed_stdio_keeps_its_descriptors_and_its_data)
{
	struct traced_run run;
	char data[300];
	snprintf(data, sizeof(data), "/tmp/vramtrace-data.%d", (int)getpid());
	hostile(&run, "closed_stdio", data, (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL});
	cr_assert_eq(run.status, 0);
	cr_assert_str_eq(read_text(data), "data on fd 0\n",
			 "its first open got fd 0, and only "
			 "its own data is in the file");
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 64 * MiB);
	unlink(data);
	traced_run_free(&run);
}

/* The summary flushed the program's streams first with fflush(NULL), which
 * waited for the lock of stdin, held by a thread blocked reading it: the
 * program never ended. */
Test(descriptors, a_thread_blocked_on_stdin_never_holds_the_exit, .timeout = 10)
{
	struct both runs;
	run_both(&runs, "hostile", "reader_at_exit", NULL,
		 (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL});
	same_behaviour(&runs);
	cr_assert_eq(runs.with.status, 0);
	cr_assert_str_eq(runs.with.out, "leaving\n");
	cr_assert(strstr(runs.with.err, "vramtrace: report written to "), "%s", runs.with.err);
	cr_assert_eq(report_int(runs.with.report, "devices/0/peak/bytes"), 64 * MiB);
	free_both(&runs);
}

/* program with argument, traced with its summary, its stderr on fd and
 * its report where output (VRAMTRACE_OUTPUT=...) says. */
static pid_t traced_with_stderr(int fd, char *output, const char *program, const char *argument)
{
	pid_t child = fork();
	if (child == 0) {
		dup2(fd, STDERR_FILENO);
		putenv(output);
		putenv("VRAMTRACE_SUMMARY=1");
		setenv("LD_LIBRARY_PATH", build_path("VT_TEST_SIM_DIR"), 1);
		setenv("LD_PRELOAD", build_path("VT_TEST_LIBRARY"), 1);
		execl(program_path(program), program, argument, (char *)NULL);
		_exit(127);
	}
	return child;
}

/* stderr is a pipe nobody reads any more: the tracer's lines fail quietly. */
Test(descriptors, a_closed_stderr_pipe_changes_nothing)
{
	int fds[2];
	cr_assert(pipe(fds) == 0);
	close(fds[0]);
	char dir[] = "/tmp/vramtrace-pipe.XXXXXX", output[300];
	cr_assert(mkdtemp(dir));
	snprintf(output, sizeof(output), "VRAMTRACE_OUTPUT=%s/r.json", dir);
	pid_t child = traced_with_stderr(fds[1], output, "ending", "return");
	close(fds[1]);
	int status;
	waitpid(child, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 3, "status %#x", status);
	char report[320];
	snprintf(report, sizeof(report), "%s/r.json", dir);
	cr_assert(access(report, R_OK) == 0, "the report is written all the same");
	unlink(report);
	rmdir(dir);
}

/* stderr is a pipe its reader drains only once the program has ended, and
 * the program filled it: the summary's write waited for room for ever. Now
 * the tracer's lines wait 2 s at most, and the program ends. */
Test(descriptors, a_full_stderr_pipe_nobody_drains_never_holds_the_exit, .timeout = 20)
{
	int fds[2];
	cr_assert(pipe(fds) == 0);
	char dir[] = "/tmp/vramtrace-full-pipe.XXXXXX", output[300];
	cr_assert(mkdtemp(dir));
	snprintf(output, sizeof(output), "VRAMTRACE_OUTPUT=%s/r.json", dir);
	pid_t child = traced_with_stderr(fds[1], output, "hostile", "fill_stderr");
	close(fds[1]);
	int status = 0;
	pid_t ended = 0;
	for (int i = 0; i < 1000 && ended == 0; i++) {
		ended = waitpid(child, &status, WNOHANG);
		if (ended == 0)
			usleep(10 * 1000);
	}
	if (ended == 0) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
	}
	cr_assert_eq(ended, child, "the program ended without its stderr read");
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
	static char text[70 * 1024];
	size_t got = 0;
	for (ssize_t n; (n = read(fds[0], text + got, sizeof(text) - got)) > 0;)
		got += (size_t)n;
	cr_assert_eq(got, 64 * 1024, "the program's own bytes: the tracer's lines found no room");
	close(fds[0]);
	char report[320];
	snprintf(report, sizeof(report), "%s/r.json", dir);
	cr_assert(access(report, R_OK) == 0, "the report is written all the same");
	unlink(report);
	rmdir(dir);
}

Test(descriptors, descriptors_the_program_reopened_are_never_the_tracers)
{
	struct both runs;
	run_both(&runs, "limits", "closed_descriptors", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_str_eq(runs.with.out, "descriptors 3 4 5\n", "every read and write was whole");
	same_file(&runs, "input");
	same_file(&runs, "output");
	same_file(&runs, "log");
	cr_assert_eq(report_int(runs.with.report, "devices/0/allocations"), 33);
	free_both(&runs);
}

Test(descriptors, under_rlimit_nofile_the_tracer_gives_way)
{
	struct both runs;
	run_both(&runs, "limits", "few_descriptors", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_str_eq(runs.with.out, "opened 3 4 (ok)\n");
	same_file(&runs, "first");
	same_file(&runs, "second");
	/* The program holds all it may open: the report cannot be, and says so
	 * in one line. */
	char expected[600];
	snprintf(expected, sizeof(expected),
		 "vramtrace: cannot write the report to %s/report.json: Too many open files; no "
		 "report written\n",
		 runs.with.dir);
	/* The control endpoint, whose socket the program closed with the rest,
	 * may say so too. */
	const char *line = strstr(runs.with.err, expected);
	cr_assert(line && strcmp(line, expected) == 0, "%s", runs.with.err);
	static const char control[] = "vramtrace: the program closed the control socket's "
				      "descriptor; the control endpoint is off\n";
	size_t before = (size_t)(line - runs.with.err);
	cr_assert(before == 0 || (before == strlen(control) &&
				  strncmp(runs.with.err, control, before) == 0),
		  "%s", runs.with.err);
	cr_assert_eq(runs.with.reports, 0);
	no_leftovers(&runs.with);
	free_both(&runs);
}
