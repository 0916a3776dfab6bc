/* The report's files: private (mode 0600, arguments redacted, no secret),
 * named as asked (a directory, a long environment, dumps on demand beside
 * the exit report or inside a directory), never a run list created or
 * followed; and when one cannot be written (no such directory, a FIFO
 * whose reader left, RLIMIT_FSIZE, host memory running out at exit,
 * failing checkpoints, a removed working directory) the program is
 * unharmed and vramtrace says so in one line, with the reason. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

static unsigned count_lines(const char *text)
{
	unsigned lines = 0;
	for (const char *c = text; *c; c++)
		lines += *c == '\n';
	return lines;
}

static void make_temporary_dir(char *dir, size_t size, const char *name)
{
	snprintf(dir, size, "/tmp/vramtrace-%s.XXXXXX", name);
	cr_assert(mkdtemp(dir));
}

static unsigned files_in(const char *dir, const char *suffix)
{
	unsigned count = 0;
	DIR *listing = opendir(dir);
	cr_assert(listing, "%s", dir);
	for (struct dirent *entry; (entry = readdir(listing));) {
		size_t length = strlen(entry->d_name), tail = strlen(suffix);
		if (entry->d_name[0] != '.' && length >= tail &&
		    strcmp(entry->d_name + length - tail, suffix) == 0)
			count++;
	}
	closedir(listing);
	return count;
}

Test(output, the_report_file_is_regular_and_only_its_owners)
{
	struct traced_run run;
	trace_program(&run, "sequence", NULL);
	char path[512];
	snprintf(path, sizeof(path), "%s/report.json", run.dir);
	struct stat st;
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(st.st_mode & 0777, 0600);
	cr_assert_eq(run.reports, 1);
	traced_run_free(&run);
}

/* Under umask 0777 the report came out mode 0000, and the control
 * directory too, which then refused every later process of the user. */
Test(output, umask_0777_leaves_the_report_and_control_directory_their_owners)
{
	char runtime[256], env[300], directory[300];
	make_temporary_dir(runtime, sizeof(runtime), "umask");
	snprintf(env, sizeof(env), "XDG_RUNTIME_DIR=%s", runtime);
	struct traced_run run;
	hostile(&run, "umask", NULL, (const char *const[]){env, NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	char path[512];
	snprintf(path, sizeof(path), "%s/report.json", run.dir);
	struct stat st;
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600, "report mode %o", st.st_mode & 0777);
	snprintf(directory, sizeof(directory), "%s/vramtrace", runtime);
	cr_assert_eq(lstat(directory, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700, "control directory mode %o", st.st_mode & 0777);
	traced_run_free(&run);
	remove_tree(runtime);
}

Test(output, redacted_arguments_and_secrets_stay_out_of_the_report)
{
	struct traced_run run;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMTRACE_REDACT_ARGS=1", "SECRET_TOKEN=hunter2",
					     "CUDA_VISIBLE_DEVICES=0", NULL},
	};
	traced_run(
		&run, &options,
		(char *[]){(char *)program_path("ending"), "return", "--password=swordfish", NULL});
	json_t *r = run.report;
	cr_assert_eq(json_array_size(report_at(r, "run/command")), 1, "only argv[0]");
	cr_assert_str_eq(report_string(r, "run/environment/CUDA_VISIBLE_DEVICES"), "0");
	cr_assert_str_eq(report_string(r, "run/environment/VRAMTRACE_REDACT_ARGS"), "1");
	char command[700];
	snprintf(command, sizeof(command),
		 "grep -q -e hunter2 -e swordfish -e SECRET %s/report.json", run.dir);
	cr_assert_neq(system(command), 0, "no secret in the report");
	traced_run_free(&run);
}

Test(output, a_long_environment_variable_leaves_room_for_the_others_in_the_report)
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

Test(output, an_output_directory_gets_a_vramtrace_pid_json_inside)
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
	remove_tree(dir);
	traced_run_free(&run);
}

Test(output, a_dump_on_demand_says_the_program_was_still_running)
{
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true};
	char path[400];
	traced_run(&run, &options, (char *[]){(char *)program_path("tags"), "placeholder", NULL});
	traced_run_free(&run);
	/* Now with the dump inside the run's own directory. */
	char dir[] = "/tmp/vt-dump.XXXXXX";
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/now.%%p.json", dir);
	traced_run(&run, &options, (char *[]){(char *)program_path("tags"), path, NULL});
	cr_assert(strstr(run.out, "dumped=0"), "%s", run.out);
	char command[600];
	snprintf(command, sizeof(command), "grep -q '\"ended_by\": \"running\"' %s/now.*.json",
		 dir);
	cr_assert_eq(system(command), 0, "the dump says the program was still running");
	remove_tree(dir);
	traced_run_free(&run);
}

Test(output, a_dump_without_a_path_keeps_the_exit_report_name)
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

/* vramtrace_dump("") is the default dump beside the report; a directory,
 * with or without its '/', takes the default name inside; /dev/null is
 * written to (the report discarded, as asked); a FIFO with no reader and a
 * missing directory fail with -1 and a warning. No file named "-1",
 * "sub/-1" or "/dev/null-1" appears. */
Test(output, a_dump_to_a_directory_goes_inside_and_one_to_a_fifo_fails_with_a_warning)
{
	char dir[64], sub[128], sub_slash[128], fifo[128], missing[128];
	make_temporary_dir(dir, sizeof(dir), "dumps");
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(sub_slash, sizeof(sub_slash), "%s/sub/", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(missing, sizeof(missing), "%s/none/x.json", dir);
	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	struct run_options options = {.preload = true, .simulate = true};
	struct traced_run run;
	traced_run(&run, &options,
		   (char *[]){(char *)program_path("odd_names"), "dump", "", sub_slash, sub,
			      "/dev/null", fifo, missing, NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	char want[1024];
	snprintf(want, sizeof(want),
		 "dump : 0\ndump %s: 0\ndump %s: 0\ndump /dev/null: 0\ndump %s: -1\ndump %s: -1\n",
		 sub_slash, sub, fifo, missing);
	cr_assert_str_eq(run.out, want);
	char beside[512];
	snprintf(beside, sizeof(beside), "%s/report.dump1.json", run.dir);
	cr_assert_eq(access(beside, F_OK), 0, "the default dump beside the report");
	cr_assert_eq(files_in(sub, ".json"), 2, "both dumps inside sub");
	cr_assert_eq(files_in(sub, "-1"), 0);
	cr_assert_eq(files_in(dir, "-1"), 0);
	cr_assert_neq(access("/dev/null-1", F_OK), 0, "nothing beside /dev/null");
	char fifo_warning[256];
	snprintf(fifo_warning, sizeof(fifo_warning),
		 "vramtrace: vramtrace_dump: cannot write the report to %s: a FIFO no process has "
		 "open for reading",
		 fifo);
	cr_assert(strstr(run.err, fifo_warning), "%s", run.err);
	traced_run_free(&run);
	remove_tree(dir);
}

Test(output, the_run_list_is_never_created_nor_followed)
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

/* A FIFO no process reads from as the run list: open(2) waited for a
 * reader forever at exit, with SIGTERM held until the report was done. */
Test(output, a_run_list_fifo_with_no_reader_never_holds_the_exit, .timeout = 30)
{
	char dir[64], fifo[128], env[160];
	make_temporary_dir(dir, sizeof(dir), "list-fifo");
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	snprintf(env, sizeof(env), "VRAMTRACE_REPORT_LIST=%s", fifo);
	struct traced_run run;
	struct run_options options = {
		.preload = true, .simulate = true, .env = (const char *const[]){env, NULL}};
	traced_run(&run, &options, (char *[]){(char *)program_path("ending"), "return", NULL});
	cr_assert_eq(run.status, 3, "the program's own status: %s", run.err);
	cr_assert_eq(run.reports, 1);
	char expected[300];
	snprintf(expected, sizeof(expected),
		 "vramtrace: cannot add this report to the list of vramtrace run (%s): No such "
		 "device or address\n",
		 fifo);
	cr_assert_str_eq(run.err, expected);
	traced_run_free(&run);
	remove_tree(dir);
}

/* A place that cannot take the report is said in one line, and the report
 * goes to $TMPDIR; where that cannot take it either, none is written. */
Test(output, an_unwritable_output_is_said_in_one_line)
{
	char tmpdir[64], env_tmpdir[128];
	make_temporary_dir(tmpdir, sizeof(tmpdir), "tmpdir");
	snprintf(env_tmpdir, sizeof(env_tmpdir), "TMPDIR=%s", tmpdir);
	struct traced_run run;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.output_name = "no/such/dir/report.json",
		.env = (const char *const[]){env_tmpdir, NULL},
	};
	traced_run(&run, &options, (char *[]){(char *)program_path("ending"), "return", NULL});
	cr_assert_eq(run.status, 3, "the program's own status");
	cr_assert_eq(run.reports, 0);
	char expected[600];
	snprintf(expected, sizeof(expected),
		 "vramtrace: cannot write the report to %s/no/such/dir/report.json: No such file "
		 "or directory; written to %s/report.json instead\n",
		 run.dir, tmpdir);
	cr_assert_str_eq(run.err, expected, "one line, and no report dumped on stderr");
	cr_assert_eq(files_in(tmpdir, ".json"), 1, "the report in %s", tmpdir);
	traced_run_free(&run);
	remove_tree(tmpdir);
	options.env = (const char *const[]){"TMPDIR=/no/such/tmpdir", NULL};
	traced_run(&run, &options, (char *[]){(char *)program_path("ending"), "return", NULL});
	snprintf(expected, sizeof(expected),
		 "vramtrace: cannot write the report to %s/no/such/dir/report.json: No such file "
		 "or directory; no report written\n",
		 run.dir);
	cr_assert_str_eq(run.err, expected);
	traced_run_free(&run);
}

/* The exit report's warning for a FIFO no process reads said "No such
 * device or address", where vramtrace_dump's says what the path is. */
Test(output, an_output_fifo_with_no_reader_is_said_in_words)
{
	char tmpdir[64], dir[64], fifo[128], env_tmpdir[128], env_output[160];
	make_temporary_dir(tmpdir, sizeof(tmpdir), "tmpdir");
	make_temporary_dir(dir, sizeof(dir), "out-fifo");
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	snprintf(env_tmpdir, sizeof(env_tmpdir), "TMPDIR=%s", tmpdir);
	snprintf(env_output, sizeof(env_output), "VRAMTRACE_OUTPUT=%s", fifo);
	struct traced_run run;
	struct run_options options = {.preload = true,
				      .simulate = true,
				      .env = (const char *const[]){env_output, env_tmpdir, NULL}};
	traced_run(&run, &options, (char *[]){(char *)program_path("ending"), "return", NULL});
	cr_assert_eq(run.status, 3, "the program's own status");
	char expected[600];
	snprintf(expected, sizeof(expected),
		 "vramtrace: cannot write the report to %s: a FIFO no process has open for "
		 "reading; written to %s/fifo instead\n",
		 fifo, tmpdir);
	cr_assert_str_eq(run.err, expected);
	traced_run_free(&run);
	remove_tree(dir);
	remove_tree(tmpdir);
}

/* A FIFO whose reader leaves after its first bytes: the write fails with
 * EPIPE (and no SIGPIPE), and the warning said "Invalid argument", the
 * errno left by what ran after the failed write, rather than why. */
Test(output, a_fifo_whose_reader_leaves_is_said_to_be_a_broken_pipe)
{
	char tmpdir[64], dir[64], fifo[128], env_tmpdir[128], env_output[160];
	make_temporary_dir(tmpdir, sizeof(tmpdir), "tmpdir");
	make_temporary_dir(dir, sizeof(dir), "out-fifo");
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	pid_t reader = fork();
	if (reader == 0) {
		char first[100];
		int fd = open(fifo, O_RDONLY);
		_exit(fd >= 0 && read(fd, first, sizeof(first)) > 0 ? 0 : 1);
	}
	snprintf(env_tmpdir, sizeof(env_tmpdir), "TMPDIR=%s", tmpdir);
	snprintf(env_output, sizeof(env_output), "VRAMTRACE_OUTPUT=%s", fifo);
	struct traced_run run;
	struct run_options options = {.preload = true,
				      .simulate = true,
				      .env = (const char *const[]){env_output, env_tmpdir, NULL}};
	/* 1,024 stacks: a report far larger than the pipe holds. */
	traced_run(&run, &options, (char *[]){(char *)program_path("many_stacks"), "10", NULL});
	int status;
	cr_assert_eq(waitpid(reader, &status, 0), reader);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the reader read %#x", status);
	cr_assert_eq(run.status, 0, "the program's own status, no SIGPIPE");
	char expected[600];
	snprintf(expected, sizeof(expected),
		 "vramtrace: cannot write the report to %s: Broken pipe; written to %s/fifo "
		 "instead\n",
		 fifo, tmpdir);
	cr_assert_str_eq(run.err, expected);
	cr_assert_eq(files_in(tmpdir, "fifo"), 1, "the whole report in %s", tmpdir);
	traced_run_free(&run);
	remove_tree(dir);
	remove_tree(tmpdir);
}

Test(output, failing_checkpoints_warn_once_and_never_flood_stderr, .timeout = 30)
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

Test(output, a_report_past_rlimit_fsize_is_the_tracers_failure)
{
	struct both runs;
	run_both(&runs, "limits", "small_files", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_eq(runs.with.status, 0, "not killed by SIGXFSZ");
	cr_assert_str_eq(runs.with.out, "done\n");
	same_file(&runs, "data");
	char expected[600];
	snprintf(expected, sizeof(expected),
		 "vramtrace: cannot write the report to %s/report.json: File too large; no report "
		 "written\n",
		 runs.with.dir);
	cr_assert_str_eq(runs.with.err, expected);
	cr_assert_eq(runs.with.reports, 0);
	no_leftovers(&runs.with);
	free_both(&runs);
}

/* The report went to $TMPDIR, and its path appended to a run list already
 * past RLIMIT_FSIZE: that write raised SIGXFSZ, which ended the program
 * with a core dump after main returned. */
Test(output, a_run_list_past_rlimit_fsize_never_ends_the_program)
{
	char tmpdir[64], dir[64], list[128], env_tmpdir[128], env_list[160];
	make_temporary_dir(tmpdir, sizeof(tmpdir), "tmpdir");
	make_temporary_dir(dir, sizeof(dir), "list");
	snprintf(list, sizeof(list), "%s/list", dir);
	FILE *file = fopen(list, "we");
	cr_assert(file);
	for (int i = 0; i < 100 * 1024; i++)
		fputc('x', file);
	fclose(file);
	snprintf(env_tmpdir, sizeof(env_tmpdir), "TMPDIR=%s", tmpdir);
	snprintf(env_list, sizeof(env_list), "VRAMTRACE_REPORT_LIST=%s", list);
	struct traced_run run;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.output_name = "no/such/dir/report.json",
		.env = (const char *const[]){env_tmpdir, env_list, NULL},
	};
	traced_run(&run, &options,
		   (char *[]){(char *)program_path("limits"), "list_past_limit", NULL});
	cr_assert_eq(run.wait_status, 0, "%#x: %s", run.wait_status, run.err);
	cr_assert_str_eq(run.out, "done\n");
	/* And vramtrace run, which reads the list, would not know where: said. */
	char expected[800];
	snprintf(expected, sizeof(expected),
		 "vramtrace: cannot add this report to the list of vramtrace run (%s): File too "
		 "large\n"
		 "vramtrace: cannot write the report to %s/no/such/dir/report.json: No such file "
		 "or directory; written to %s/report.json instead\n",
		 list, run.dir, tmpdir);
	cr_assert_str_eq(run.err, expected);
	struct stat status;
	cr_assert_eq(stat(list, &status), 0);
	cr_assert_eq(status.st_size, 100 * 1024, "nothing appended past the limit");
	cr_assert_eq(files_in(tmpdir, ".json"), 1);
	traced_run_free(&run);
	remove_tree(dir);
	remove_tree(tmpdir);
}

/* A run list that is gone belongs to a run that is over: nobody asks, and
 * nothing is said. One that cannot take the path is said, once. */
Test(output, a_run_list_that_cannot_be_added_to_is_said_unless_gone)
{
	const char *lists[] = {"VRAMTRACE_REPORT_LIST=/no/such/list",
			       "VRAMTRACE_REPORT_LIST=/dev/full"};
	for (int i = 0; i < 2; i++) {
		struct traced_run run;
		struct run_options options = {.preload = true,
					      .simulate = true,
					      .env = (const char *const[]){lists[i], NULL}};
		traced_run(&run, &options,
			   (char *[]){(char *)program_path("ending"), "return", NULL});
		cr_assert_eq(run.status, 3, "the program's own status: %s", run.err);
		cr_assert_eq(run.reports, 1, "the report is written all the same");
		cr_assert_str_eq(
			run.err,
			i == 0 ? ""
			       : "vramtrace: cannot add this report to the list of vramtrace "
				 "run (/dev/full): No space left on device\n");
		traced_run_free(&run);
	}
}

/* On a file system without hard links the report's temporary could never
 * be given its name: no report at all, there or in $TMPDIR. */
Test(output, a_file_system_without_hard_links_gets_its_report)
{
	struct both runs;
	run_both(&runs, "limits", "no_hard_links", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_eq(runs.with.status, 0);
	cr_assert_str_eq(runs.with.out, "done\n");
	cr_assert_str_eq(runs.with.err, "");
	cr_assert_eq(runs.with.reports, 1);
	cr_assert_eq(report_int(runs.with.report, "devices/0/peak/bytes"), MiB);
	char path[300];
	snprintf(path, sizeof(path), "%s/report.json", runs.with.dir);
	struct stat status;
	cr_assert_eq(lstat(path, &status), 0);
	cr_assert(S_ISREG(status.st_mode) && (status.st_mode & 0777) == 0600, "%o", status.st_mode);
	no_leftovers(&runs.with);
	free_both(&runs);
}

/* malloc fails after N more calls once main returns, for N across every
 * allocation the exit report makes (libdw's and ld.so's included): the
 * program's status and output stay its own, a report is whole or absent,
 * and the tracer says so in one line at most. */
Test(output, host_memory_running_out_at_exit_is_the_tracers_failure, .timeout = 240)
{
	for (int after = 0; after <= 600; after += 3) {
		char text[16];
		snprintf(text, sizeof(text), "%d", after);
		struct both runs;
		run_both(&runs, "malloc_fails", text, "5", NULL);
		same_behaviour(&runs);
		cr_assert_eq(runs.with.status, 5, "after %d: %s", after, runs.with.err);
		cr_assert_str_eq(runs.with.out, "leaving with 5\n");
		cr_assert_leq(count_lines(runs.with.err), 1, "after %d: %s", after, runs.with.err);
		cr_assert(!runs.with.err[0] || strncmp(runs.with.err, "vramtrace: ", 11) == 0,
			  "after %d: %s", after, runs.with.err);
		no_leftovers(&runs.with);
		if (runs.with.reports)
			cr_assert_eq(report_int(runs.with.report, "devices/0/peak/bytes"),
				     10 * MiB);
		free_both(&runs);
	}
}

/* The working directory removed before the first CUDA call: a relative
 * VRAMTRACE_OUTPUT has no place, so the report goes to $TMPDIR, and the
 * warning says why in words (it said "expands to a path too long" and
 * "cannot write the report to : Success"). */
/* A scratch directory the program worked in and removed before its end:
 * the report, whose place was there, goes to $TMPDIR, said in one line. */
Test(output, a_place_removed_before_the_end_sends_the_report_to_tmpdir)
{
	char tmpdir[64], scratch[64], env_tmpdir[128];
	make_temporary_dir(tmpdir, sizeof(tmpdir), "tmpdir");
	make_temporary_dir(scratch, sizeof(scratch), "scratch");
	snprintf(env_tmpdir, sizeof(env_tmpdir), "TMPDIR=%s", tmpdir);
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMTRACE_OUTPUT=scratch.%p.json", env_tmpdir, NULL}};
	struct traced_run run;
	traced_run(&run, &options,
		   (char *[]){(char *)program_path("odd_names"), "leave", scratch, NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	char said[512];
	snprintf(said, sizeof(said), "vramtrace: cannot write the report to %s/scratch.", scratch);
	cr_assert(strstr(run.err, said), "%s", run.err);
	snprintf(said, sizeof(said), ": No such file or directory; written to %s/scratch.", tmpdir);
	cr_assert(strstr(run.err, said), "%s", run.err);
	cr_assert_eq(files_in(tmpdir, ".json"), 1, "the report in %s", tmpdir);
	char command[256];
	snprintf(command, sizeof(command),
		 "grep -q '\"live_at_exit_bytes\": 3145728' %s/scratch.*.json", tmpdir);
	cr_assert_eq(system(command), 0, "the report holds the 3 MiB allocation");
	traced_run_free(&run);
	remove_tree(tmpdir);
}

Test(output, a_removed_working_directory_sends_the_report_to_tmpdir)
{
	char tmpdir[64], gone[64], env_tmpdir[128];
	make_temporary_dir(tmpdir, sizeof(tmpdir), "tmpdir");
	make_temporary_dir(gone, sizeof(gone), "gone");
	snprintf(env_tmpdir, sizeof(env_tmpdir), "TMPDIR=%s", tmpdir);
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMTRACE_OUTPUT=moved.%p.json", env_tmpdir, NULL}};
	struct traced_run run;
	traced_run(&run, &options,
		   (char *[]){(char *)program_path("odd_names"), "gone", gone, NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.err, "vramtrace: the working directory is gone (No such file or "
				  "directory), so the relative VRAMTRACE_OUTPUT 'moved.%p.json' "
				  "has no place there; the report goes to "),
		  "%s", run.err);
	cr_assert(strstr(run.err, tmpdir), "%s", run.err);
	cr_assert_not(strstr(run.err, "too long"), "%s", run.err);
	cr_assert_not(strstr(run.err, "Success"), "%s", run.err);
	cr_assert_eq(files_in(tmpdir, ".json"), 1, "the report in %s", tmpdir);
	char command[256];
	snprintf(command, sizeof(command),
		 "grep -q '\"live_at_exit_bytes\": 3145728' %s/moved.*.json", tmpdir);
	cr_assert_eq(system(command), 0, "the report holds the 3 MiB allocation");
	traced_run_free(&run);
	remove_tree(tmpdir);
}
