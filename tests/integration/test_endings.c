/* Every way a process ends leaves its report (tests/integration/programs/
 * ending.c, signals.c, hostile.c, limits.c): a return from main, exit from
 * any thread or from a signal's handler, main leaving by pthread_exit,
 * every signal whose default action ends a process, on any thread, crashes
 * and stack overflows, quick_exit, _Exit and exit_group, exec, and with
 * checkpoints SIGKILL and _exit; each with the status, core dump and output
 * the program has without vramtrace. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

struct ending {
	const char *how;
	int status;
	const char *ended_by;
};

static const struct ending endings[] = {
	{"return", 3, "exit 3"},     {"thread", 7, "exit 7"},
	{"handled", 5, "exit 5"},    {"sigterm", 143, "signal 15"},
	{"sigint", 130, "signal 2"}, {"segv", 139, "signal 11"},
	{"abort", 134, "signal 6"},  {"exec", 9, "exec"},
	{"kill", 137, "checkpoint"}, {"_exit", 4, "checkpoint"},
	{"sys_exit", 6, "exit 6"},   {"sys_exit_before_thread", 0, "exit"},
};

static void run_ending(struct traced_run *run, const char *how, bool preload)
{
	struct run_options options = {
		.preload = preload,
		.simulate = true,
		.env = (const char *const[]){"VRAMTRACE_CHECKPOINT_S=1", NULL},
	};
	traced_run(run, &options, (char *[]){(char *)program_path("ending"), (char *)how, NULL});
}

Test(endings, the_report_survives_every_ending, .timeout = 120)
{
	for (size_t i = 0; i < sizeof(endings) / sizeof(endings[0]); i++) {
		const struct ending *e = &endings[i];
		struct traced_run with, without;
		run_ending(&with, e->how, true);
		run_ending(&without, e->how, false);
		cr_assert_eq(without.status, e->status, "%s without: %d", e->how, without.status);
		cr_assert_eq(with.status, e->status, "%s: status %d, not %d: %s", e->how,
			     with.status, e->status, with.err);
		cr_assert_eq(with.reports, 1, "%s: %u reports: %s", e->how, with.reports, with.err);
		cr_assert_str_eq(report_string(with.report, "run/ended_by"), e->ended_by, "%s",
				 e->how);
		cr_assert_eq(report_int(with.report, "devices/0/peak/bytes"), 64 * MiB, "%s",
			     e->how);
		cr_assert_eq(report_int(with.report, "devices/0/live_at_exit_bytes"), 64 * MiB,
			     "%s", e->how);
		traced_run_free(&with);
		traced_run_free(&without);
	}
}

/* exit called again while the process exits: glibc ends it with the later
 * status, and an exit from a destructor runs no destructor after it, so
 * the report was lost (vramtrace's own never ran) or named the first. */
Test(endings, exit_called_again_while_exiting_is_reported_with_its_status, .timeout = 60)
{
	static const struct ending again[] = {
		{"exit_in_atexit", 10, "exit 10"},
		{"quick_exit_in_atexit", 11, "exit 11"},
		{"exit_in_destructor", 12, "exit 12"},
	};
	for (size_t i = 0; i < sizeof(again) / sizeof(again[0]); i++) {
		const struct ending *e = &again[i];
		struct both runs;
		run_both(&runs, "ending", e->how, NULL, NULL);
		same_behaviour(&runs);
		cr_assert_eq(runs.with.status, e->status, "%s: %d: %s", e->how, runs.with.status,
			     runs.with.err);
		cr_assert_eq(runs.with.reports, 1, "%s: %u reports", e->how, runs.with.reports);
		cr_assert_str_eq(report_string(runs.with.report, "run/ended_by"), e->ended_by, "%s",
				 e->how);
		cr_assert_eq(report_int(runs.with.report, "devices/0/peak/bytes"), 64 * MiB, "%s",
			     e->how);
		free_both(&runs);
	}
}

Test(endings, an_emergency_report_is_a_valid_report)
{
	struct traced_run run;
	run_ending(&run, "segv", true);
	cr_assert(json_is_true(report_at(run.report, "tracer/emergency")));
	json_t *left_out = report_at(run.report, "tracer/left_out");
	cr_assert_eq(json_array_size(left_out), 6, "what a signal handler cannot gather is named");
	cr_assert_str_eq(json_string_value(json_array_get(left_out, 0)), "leaks");
	cr_assert_str_eq(json_string_value(json_array_get(left_out, 2)), "device_view");
	cr_assert_str_eq(report_string(run.report, "schema"), "vramtrace/1");
	cr_assert(strstr(run.err, "vramtrace: ended by a signal; report written"), "%s", run.err);
	char command[1200];
	snprintf(command, sizeof(command), "%s report %s/report.json > /dev/null",
		 build_path("VT_TEST_TOOL"), run.dir);
	cr_assert_eq(system(command), 0, "the tool reads it");
	traced_run_free(&run);
}

Test(endings, main_leaving_by_pthread_exit_ends_with_its_last_thread, .timeout = 30)
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

/* Where /proc cannot be read, the tracer's threads cannot count the
 * program's: they leave at main's pthread_exit rather than keep the process
 * alive for ever once the program's last thread has ended. */
Test(endings, main_leaving_by_pthread_exit_inside_a_chroot_ends_with_its_last_thread, .timeout = 30)
{
	struct both runs;
	run_both(&runs, "hostile", "pthread_exit_chrooted", NULL, NULL);
	if (runs.without.status == 77) {
		free_both(&runs);
		cr_skip_test("no chroot: neither root nor a user namespace");
	}
	same_behaviour(&runs);
	cr_assert_eq(runs.with.status, 0, "%s", runs.with.err);
	char path[400];
	snprintf(path, sizeof(path), "%s/jail/tmp/report.json", runs.with.dir);
	json_t *report = json_load_file(path, 0, NULL);
	cr_assert(report, "the report is in the chroot's /tmp: %s", runs.with.err);
	cr_assert_str_eq(report_string(report, "run/ended_by"), "exit");
	cr_assert_eq(report_int(report, "devices/0/peak/bytes"), 96 * MiB);
	json_decref(report);
	free_both(&runs);
}

/* The report written at exit reaches cancellation points (open, write):
 * a pending cancellation acted on there ended the main thread halfway,
 * with the ending signals blocked, and left the tracer's threads holding
 * a process that nothing but SIGKILL could end. */
Test(endings, exit_with_a_cancellation_pending_ends_with_its_status, .timeout = 60)
{
	struct traced_run run;
	hostile(&run, "cancel_then_exit", NULL, NULL);
	cr_assert_eq(run.status, 9, "%s", run.err);
	cr_assert_eq(run.reports, 1);
	cr_assert_str_eq(report_string(run.report, "run/ended_by"), "exit 9");
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 64 * MiB);
	traced_run_free(&run);
}

Test(endings, exit_from_a_signal_handler_mid_allocation_never_hangs, .timeout = 120)
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

Test(endings, the_endings_that_skip_destructors_are_reported, .timeout = 60)
{
	same_with_a_report("quick_exit", "7", NULL, "exit 7", 64 * MiB);
	same_with_a_report("_Exit", "8", NULL, "exit 8", 64 * MiB);
	same_with_a_report("exit_group", "9", NULL, "exit 9", 64 * MiB);
}

Test(endings, exec_takes_any_number_of_arguments)
{
	static const char *const forms[] = {"execl", "execlp", "execle"};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct both runs;
		run_both(&runs, "limits", "many_arguments", forms[i], NULL);
		same_behaviour(&runs);
		char expected[128];
		snprintf(expected, sizeof(expected), "5003 arguments, the last 'last', from %s\n",
			 i == 2 ? "execle" : "a plain exec");
		cr_assert_str_eq(runs.with.out, expected, "%s", forms[i]);
		cr_assert_eq(runs.with.reports, 1, "%s", forms[i]);
		cr_assert_str_eq(report_string(runs.with.report, "run/ended_by"), "exec");
		cr_assert_eq(report_int(runs.with.report, "devices/0/peak/bytes"), MiB);
		free_both(&runs);
	}
}

/* execveat (glibc 2.34 on) replaces the process as execve does. */
Test(endings, execveat_is_reported)
{
	struct both runs;
	run_both(&runs, "limits", "execveat", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_str_eq(runs.with.out, "2 arguments, the last 'count', from a plain exec\n");
	cr_assert_eq(runs.with.reports, 1);
	cr_assert_str_eq(report_string(runs.with.report, "run/ended_by"), "exec");
	cr_assert_eq(report_int(runs.with.report, "devices/0/peak/bytes"), MiB);
	free_both(&runs);
}

/* An exec the kernel is sure to refuse (a missing file, a directory, a file
 * that cannot be run) writes no report: a search along PATH, by glibc's
 * execvp or one execve per entry as Python's os.execvp does, has one report
 * and one summary, from the exec that replaced the process. */
Test(endings, a_search_along_path_writes_one_report, .timeout = 60)
{
	static const char *const forms[] = {"execvp", "each_entry"};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct both runs;
		run_both(&runs, "limits", "path_search", forms[i],
			 (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL});
		same_behaviour(&runs);
		cr_assert_str_eq(runs.with.out,
				 "2 arguments, the last 'count', from a plain exec\n", "%s",
				 forms[i]);
		cr_assert_eq(runs.with.reports, 1, "%s: %u reports", forms[i], runs.with.reports);
		cr_assert_str_eq(report_string(runs.with.report, "run/ended_by"), "exec");
		cr_assert_eq(count_of(runs.with.err, "vramtrace: report written to"), 1, "%s: %s",
			     forms[i], runs.with.err);
		free_both(&runs);
	}
}

/* A search that finds nothing to run fails as it would without vramtrace,
 * and the process's one report is the one at its exit. */
Test(endings, a_search_along_path_that_fails_reports_at_exit, .timeout = 60)
{
	struct both runs;
	run_both(&runs, "limits", "path_search", "execvp_missing",
		 (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL});
	same_behaviour(&runs);
	cr_assert_str_eq(runs.with.out, "execvp_missing failed: Permission denied\n");
	cr_assert_eq(runs.with.reports, 1);
	cr_assert_str_eq(report_string(runs.with.report, "run/ended_by"), "exit 0");
	cr_assert_eq(count_of(runs.with.err, "vramtrace: report written to"), 1, "%s",
		     runs.with.err);
	free_both(&runs);
}

/* Two execs the kernel is sure to refuse, seen as it would: a search whose
 * first entry of PATH is a loop of links, where glibc stops (ELOOP) before
 * the entry that holds the program, and fexecve of a script through a
 * close-on-exec descriptor (ENOENT). No report or summary before either. */
Test(endings, execs_sure_to_fail_write_no_report_before, .timeout = 60)
{
	static const char *const modes[][2] = {{"path_search", "execvp_loop"},
					       {"script_closed_on_exec", NULL}};
	static const char *const said[] = {
		"execvp_loop failed: Too many levels of symbolic links\n",
		"fexecve failed: No such file or directory\n"};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct both runs;
		run_both(&runs, "limits", modes[i][0], modes[i][1],
			 (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL});
		same_behaviour(&runs);
		cr_assert_str_eq(runs.with.out, said[i]);
		cr_assert_eq(runs.with.reports, 1);
		cr_assert_str_eq(report_string(runs.with.report, "run/ended_by"), "exit 0");
		cr_assert_eq(count_of(runs.with.err, "vramtrace: report written to"), 1, "%s: %s",
			     modes[i][0], runs.with.err);
		free_both(&runs);
	}
}

/* The report written before an exec stopped the device's sampler, and an
 * exec that failed left it stopped for the rest of the run. The exec looks
 * possible (an empty file the process may run), so the report is written,
 * and the kernel refuses it (ENOEXEC). */
Test(endings, a_failed_exec_leaves_the_process_and_its_sampling_as_before, .timeout = 60)
{
	struct both runs;
	run_both(&runs, "hostile", "failed_exec", NULL,
		 (const char *const[]){"VRAMTRACE_SAMPLE_MS=5", "VRAMTRACE_SUMMARY=1", NULL});
	same_behaviour(&runs);
	cr_assert_str_eq(runs.with.out, "exec -1 ENOEXEC\n");
	cr_assert(strstr(runs.with.err, "vramtrace: report written to"), "%s", runs.with.err);
	json_t *r = runs.with.report;
	cr_assert_str_eq(report_string(r, "run/ended_by"), "exit 0");
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 80 * MiB);
	int64_t samples = report_int(r, "devices/0/device_view/samples");
	cr_assert_geq(samples, 20, "%lld samples in the half second after the exec",
		      (long long)samples);
	free_both(&runs);
}

Test(endings, exec_with_the_summary_leaves_the_programs_buffers_alone)
{
	struct both runs;
	run_both(&runs, "limits", "exec_unflushed", NULL,
		 (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL});
	same_behaviour(&runs);
	cr_assert_str_eq(runs.with.out, "2 arguments, the last 'count', from a plain exec\n",
			 "what was never flushed is lost at exec, as without vramtrace");
	cr_assert(strstr(runs.with.err, "vramtrace: report written to"), "%s", runs.with.err);
	free_both(&runs);
}

Test(endings, every_signal_that_ends_a_process_is_reported, .timeout = 240)
{
	int numbers[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGTRAP,   SIGABRT,  SIGUSR1,      SIGUSR2,
			 SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU,  SIGXFSZ,      SIGVTALRM,
			 SIGPROF, SIGIO,   SIGPWR,  SIGSYS,    SIGRTMIN, SIGRTMIN + 6, SIGRTMAX};
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		char number[16], ended_by[32];
		snprintf(number, sizeof(number), "%d", numbers[i]);
		snprintf(ended_by, sizeof(ended_by), "signal %d", numbers[i]);
		same_with_a_report("raise", number, "main", ended_by, 64 * MiB);
	}
	char *on_threads[] = {"11", "31", "34"};
	for (size_t i = 0; i < 3; i++) {
		char ended_by[32];
		snprintf(ended_by, sizeof(ended_by), "signal %s", on_threads[i]);
		same_with_a_report("raise", on_threads[i], "thread", ended_by, 64 * MiB);
	}
	same_with_a_report("trap", NULL, NULL, "signal 5", 64 * MiB);
	same_with_a_report("abort_handled", NULL, NULL, "signal 6", 64 * MiB);
}

Test(endings, an_ending_signal_gives_status_128_plus_n_and_one_report)
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

/* Core files on: a signal that dumps core still does, one that does not
 * still does not (a small limit keeps the files small; each goes to its
 * run's directory). */
Test(endings, the_core_dump_is_as_it_would_have_been, .timeout = 60)
{
	struct rlimit small = {4096, 4096};
	cr_assert(setrlimit(RLIMIT_CORE, &small) == 0);
	same_with_a_report("raise", "3", "main", "signal 3", 64 * MiB);
	same_with_a_report("raise", "15", "main", "signal 15", 64 * MiB);
	same_with_a_report("overflow", "late", NULL, "signal 11", 64 * MiB);
}

Test(endings, a_stack_overflow_on_a_thread_that_never_used_cuda_is_reported, .timeout = 60)
{
	same_with_a_report("overflow", "late", NULL, "signal 11", 64 * MiB);
	same_with_a_report("overflow", "early", NULL, "signal 11", 64 * MiB);
	/* The main thread, whose first CUDA call never came (a worker's did),
	 * and after it set a stack of its own, then none. */
	same_with_a_report("overflow", "main_after_worker", NULL, "signal 11", 64 * MiB);
	same_with_a_report("overflow", "main_disabled", NULL, "signal 11", 64 * MiB);
}

/* On a small alternate stack of the program's (16 KiB), the report is
 * written on the tracer's: it would not fit, and the process died by
 * SIGSEGV instead of its own signal. */
Test(endings, an_ending_on_a_small_stack_of_the_programs_keeps_its_signal, .timeout = 60)
{
	same_with_a_report("raise", "15", "small_stack", "signal 15", 64 * MiB);
	same_with_a_report("raise", "6", "small_stack", "signal 6", 64 * MiB);
}

/* Two ending signals on two threads at once: the process dies of the one
 * whose report was written, as it would die of the first without. */
Test(endings, two_signals_at_once_end_the_process_by_the_one_reported, .timeout = 120)
{
	for (int i = 0; i < 20; i++) {
		struct traced_run run;
		run_signals(&run, true, "two_signals", NULL, NULL);
		cr_assert(run.status == 128 + SIGINT || run.status == 128 + SIGTERM, "%d: %s",
			  run.status, run.err);
		cr_assert_eq(run.reports, 1);
		char ended_by[32];
		snprintf(ended_by, sizeof(ended_by), "signal %d", run.status - 128);
		cr_assert_str_eq(report_string(run.report, "run/ended_by"), ended_by, "run %d", i);
		cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 64 * MiB);
		traced_run_free(&run);
	}
}

/* SIGTERM while the exit report (32,768 stacks) is being written: the
 * report is finished first, then the signal ends the process as it would
 * have without vramtrace. */
Test(endings, sigterm_during_the_final_write_waits_for_it, .timeout = 60)
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
