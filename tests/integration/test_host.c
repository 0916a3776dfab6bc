/* Never harm the host: what servers, daemons and runtimes do to a preloaded
 * tracer (tests/integration/programs/hostile.c), each with the exact
 * status, files and report the program must end with. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

static void hostile(struct traced_run *run, const char *mode, const char *arg,
		    const char *const *env)
{
	struct run_options options = {.preload = true, .simulate = true, .env = env};
	traced_run(run, &options,
		   (char *[]){(char *)program_path("hostile"), (char *)mode, (char *)arg, NULL});
}

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

Test(host, main_leaving_by_pthread_exit_ends_with_its_last_thread, .timeout = 30)
{
	struct traced_run run;
	hostile(&run, "pthread_exit", NULL, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(run.reports, 1);
	cr_assert_str_eq(report_string(run.report, "run/ended_by"), "exit");
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 96 * MiB,
		     "the worker's 32 MiB after main left");
	traced_run_free(&run);
}

Test(host, exit_from_a_signal_handler_mid_allocation_never_hangs, .timeout = 120)
{
	/* One run in three hung before: 40 runs leave it no room to hide. */
	for (int seed = 1; seed <= 40; seed++) {
		char text[16];
		snprintf(text, sizeof(text), "%d", seed);
		struct traced_run run;
		hostile(&run, "exit_in_handler", text, NULL);
		cr_assert_eq(run.status, 3, "seed %d: %s", seed, run.err);
		cr_assert_eq(run.reports, 1, "seed %d", seed);
		cr_assert_str_eq(report_string(run.report, "run/ended_by"), "exit 3");
		int64_t live = report_int(run.report, "devices/0/live_at_exit_bytes");
		cr_assert(live == 64 * MiB || live == 65 * MiB, "seed %d: %lld live", seed,
			  (long long)live);
		traced_run_free(&run);
	}
}

Test(host, a_daemon_that_closed_stdio_keeps_its_descriptors_and_its_data)
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

/* stderr is a pipe nobody reads any more: the tracer's lines fail quietly. */
Test(host, a_closed_stderr_pipe_changes_nothing)
{
	int fds[2];
	cr_assert(pipe(fds) == 0);
	close(fds[0]);
	char dir[] = "/tmp/vramtrace-pipe.XXXXXX", output[300];
	cr_assert(mkdtemp(dir));
	snprintf(output, sizeof(output), "VRAMTRACE_OUTPUT=%s/r.json", dir);
	pid_t child = fork();
	if (child == 0) {
		dup2(fds[1], STDERR_FILENO);
		putenv(output);
		putenv("VRAMTRACE_SUMMARY=1");
		setenv("LD_LIBRARY_PATH", build_path("VT_TEST_SIM_DIR"), 1);
		setenv("LD_PRELOAD", build_path("VT_TEST_LIBRARY"), 1);
		execl(program_path("ending"), "ending", "return", (char *)NULL);
		_exit(127);
	}
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

Test(host, every_ending_signal_leaves_a_report)
{
	static const struct {
		const char *name;
		int number;
	} signals[] = {{"SIGQUIT", SIGQUIT}, {"SIGPIPE", SIGPIPE},     {"SIGALRM", SIGALRM},
		       {"SIGUSR1", SIGUSR1}, {"SIGUSR2", SIGUSR2},     {"SIGXCPU", SIGXCPU},
		       {"SIGXFSZ", SIGXFSZ}, {"SIGVTALRM", SIGVTALRM}, {"SIGPROF", SIGPROF}};
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		struct traced_run run;
		hostile(&run, "raise", signals[i].name, NULL);
		char ended_by[32];
		snprintf(ended_by, sizeof(ended_by), "signal %d", signals[i].number);
		cr_assert_eq(run.status, 128 + signals[i].number, "%s", signals[i].name);
		cr_assert_eq(run.reports, 1, "%s", signals[i].name);
		cr_assert_str_eq(report_string(run.report, "run/ended_by"), ended_by);
		cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 64 * MiB);
		traced_run_free(&run);
	}
}

Test(host, each_lookup_reaches_the_library_it_asked)
{
	static const char *const orders[] = {"shim-first", "shim-last"};
	char shim[4096];
	snprintf(shim, sizeof(shim), "%s", program_path("libshim.so"));
	for (size_t i = 0; i < 2; i++) {
		struct traced_run run;
		hostile(&run, orders[i], shim, NULL);
		cr_assert_eq(run.status, 0,
			     "%s: status %d (10: the shim's function reached the driver, 11: "
			     "cudaMalloc reached the shim)",
			     orders[i], run.status);
		cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 64 * MiB);
		traced_run_free(&run);
	}
}

Test(host, a_recovered_sigsegv_does_not_end_the_trace)
{
	struct traced_run run;
	hostile(&run, "recovered_segv", NULL, NULL);
	cr_assert_eq(run.status, 128 + SIGABRT);
	cr_assert_eq(run.reports, 1, "one file: no -1 beside it");
	cr_assert_str_eq(report_string(run.report, "run/ended_by"), "signal 6");
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 3072 * MiB,
		     "the 2 GiB allocated after the recovery counts");
	traced_run_free(&run);
}

Test(host, a_dump_without_a_path_keeps_the_exit_report_name)
{
	struct traced_run run;
	hostile(&run, "dump_null", NULL, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(run.reports, 2);
	char path[400];
	snprintf(path, sizeof(path), "%s/report.json", run.dir);
	json_t *final = json_load_file(path, 0, NULL);
	snprintf(path, sizeof(path), "%s/report.dump1.json", run.dir);
	json_t *dump = json_load_file(path, 0, NULL);
	cr_assert(final && dump, "report.json and report.dump1.json");
	cr_assert_str_eq(report_string(final, "run/ended_by"), "exit 0");
	cr_assert_eq(report_int(final, "devices/0/peak/bytes"), 96 * MiB);
	cr_assert_str_eq(report_string(dump, "run/ended_by"), "running");
	cr_assert_eq(report_int(dump, "devices/0/peak/bytes"), 64 * MiB);
	json_decref(final);
	json_decref(dump);
	traced_run_free(&run);
}

Test(host, threads_of_a_thread_sanitizer_program_exit_cleanly)
{
	if (access(program_path("tsan"), X_OK) != 0)
		cr_skip_test("no -fsanitize=thread here");
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true};
	traced_run(&run, &options, (char *[]){(char *)program_path("tsan"), NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 64 * MiB);
	cr_assert_eq(report_int(run.report, "devices/0/allocations"), 5);
	traced_run_free(&run);
}

Test(host, failing_checkpoints_warn_once_and_never_flood_stderr, .timeout = 30)
{
	struct traced_run run;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.output_name = "no/such/dir/report.json",
		.env = (const char *const[]){"VRAMTRACE_CHECKPOINT_S=1", NULL},
	};
	traced_run(&run, &options, (char *[]){(char *)program_path("ending"), "_exit", NULL});
	cr_assert_eq(run.status, 4);
	cr_assert_null(strstr(run.err, "\"schema\""), "no report on stderr: %s", run.err);
	const char *first = strstr(run.err, "cannot write a checkpoint");
	cr_assert(first, "%s", run.err);
	cr_assert_null(strstr(first + 1, "cannot write a checkpoint"), "once: %s", run.err);
	traced_run_free(&run);
}

Test(host, the_run_list_is_never_created_nor_followed)
{
	char dir[] = "/tmp/vramtrace-list.XXXXXX", missing[300], link_path[300], target[300];
	char linked[400];
	cr_assert(mkdtemp(dir));
	snprintf(missing, sizeof(missing), "VRAMTRACE_REPORT_LIST=%s/gone", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link_path, sizeof(link_path), "%s/link", dir);
	cr_assert(symlink(target, link_path) == 0);
	snprintf(linked, sizeof(linked), "VRAMTRACE_REPORT_LIST=%s", link_path);
	const char *const *envs[] = {(const char *const[]){missing, NULL},
				     (const char *const[]){linked, NULL}};
	for (int i = 0; i < 2; i++) {
		struct traced_run run;
		hostile(&run, "raise", "SIGUSR1", envs[i]);
		cr_assert_eq(run.reports, 1);
		traced_run_free(&run);
	}
	struct stat status;
	cr_assert_neq(lstat(missing + strlen("VRAMTRACE_REPORT_LIST="), &status), 0, "not created");
	cr_assert_neq(stat(target, &status), 0, "not followed");
	unlink(link_path);
	rmdir(dir);
}

Test(host, an_output_directory_gets_the_default_name)
{
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true, .output_name = "sub/"};
	char dir[300];
	snprintf(dir, sizeof(dir), "/tmp/vramtrace-out.%d", (int)getpid());
	mkdir(dir, 0700);
	char output[330];
	snprintf(output, sizeof(output), "VRAMTRACE_OUTPUT=%s/", dir);
	options.env = (const char *const[]){output, NULL};
	traced_run(&run, &options, (char *[]){(char *)program_path("ending"), "return", NULL});
	char command[700];
	snprintf(command, sizeof(command), "ls %s | grep -qx 'vramtrace\\.[0-9]*\\.json'", dir);
	cr_assert_eq(system(command), 0, "a vramtrace.PID.json inside %s", dir);
	snprintf(command, sizeof(command), "rm -rf %s", dir);
	cr_assert_eq(system(command), 0);
	traced_run_free(&run);
}

Test(host, a_long_variable_leaves_room_for_the_rest)
{
	static char huge[6000] = "CUDA_MODULE_LOADING=";
	memset(huge + strlen(huge), 'x', 5000);
	struct traced_run run;
	hostile(&run, "raise", "SIGUSR2",
		(const char *const[]){huge, "CUDA_VISIBLE_DEVICES=0", "RANK=3", NULL});
	cr_assert_str_eq(report_string(run.report, "run/environment/CUDA_VISIBLE_DEVICES"), "0");
	cr_assert_str_eq(report_string(run.report, "run/environment/RANK"), "3");
	traced_run_free(&run);
}

/* SIGTERM while the exit report (32,768 stacks) is being written: the
 * report is finished first, then the signal ends the process as it would
 * have without vramtrace. */
Test(host, sigterm_during_the_final_write_waits_for_it, .timeout = 60)
{
	struct traced_run run;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMTRACE_TOP=100000", NULL},
	};
	traced_run(&run, &options,
		   (char *[]){(char *)program_path("many_stacks"), "15", "30", NULL});
	cr_assert_eq(run.status, 128 + SIGTERM, "%s", run.err);
	cr_assert_eq(run.reports, 1, "one complete report");
	cr_assert_eq(json_array_size(report_at(run.report, "devices/0/stacks")), 32768);
	char command[400];
	snprintf(command, sizeof(command), "ls %s | grep -q '\\.tmp$'", run.dir);
	cr_assert_neq(system(command), 0, "no temporary file left");
	traced_run_free(&run);
}
