/* Signals and endings (tests/integration/programs/signals.c): where the
 * program's handlers run, fork from a handler, stack overflows on any
 * thread, and every way a process can end, each compared with the same
 * run without vramtrace: exit status or signal, core dump flag, output,
 * and the report's exact peak and ended_by. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

static void run_signals(struct traced_run *run, bool preload, char *mode, char *arg, char *extra)
{
	struct run_options options = {.preload = preload, .simulate = true};
	traced_run(run, &options,
		   (char *[]){(char *)program_path("signals"), mode, arg, extra, NULL});
}

/* With and without vramtrace: the same status and output; with it, one
 * report with the 64 MiB the program holds and the ending it had. */
static void same_with_a_report(char *mode, char *arg, char *extra, const char *ended_by,
			       int64_t peak)
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

static char *repeat(const char *line, const char *how, int count)
{
	static char text[2048];
	size_t at = 0;
	for (int i = 0; i < count; i++)
		at += (size_t)snprintf(text + at, sizeof(text) - at, "%s %d: %s\n", how, i, line);
	return text;
}

Test(signals, the_programs_handlers_run_on_the_stack_it_asked_for, .timeout = 60)
{
	struct traced_run run;
	run_signals(&run, true, "stacks", "plain", NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(run.out, repeat("on the thread's stack", "plain", 10),
			 "a 1 MiB frame without SA_ONSTACK, on the thread's own stack");
	traced_run_free(&run);
	run_signals(&run, true, "stacks", "onstack", NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(run.out, repeat("on its own alternate stack", "onstack", 10));
	traced_run_free(&run);
	same_with_a_report("stacks", "plain", NULL, "exit 0", 64 * MiB);
	same_with_a_report("stacks", "onstack", NULL, "exit 0", 64 * MiB);
}

/* SA_ONSTACK with no alternate stack of the program's: the kernel runs the
 * handler on the thread's stack, and sigaltstack says there is none. The
 * tracer's own 256 KiB stack (for its report after a stack overflow) must
 * stay invisible: neither shown nor used for the program's handlers. */
Test(signals, sa_onstack_without_an_alternate_stack_runs_on_the_threads_stack, .timeout = 60)
{
	struct traced_run run;
	run_signals(&run, true, "stacks", "onstack_unset", NULL);
	char expected[2048] = "alternate stack: none\n";
	strcat(expected, repeat("on the thread's stack", "onstack_unset", 10));
	cr_assert_eq(run.status, 0, "the 1 MiB frame overflowed the tracer's stack: %d: %s",
		     run.status, run.err);
	cr_assert_str_eq(run.out, expected);
	traced_run_free(&run);
	same_with_a_report("stacks", "onstack_unset", NULL, "exit 0", 64 * MiB);
}

/* The timer's handler lands inside the tracer (its locks, malloc) and the
 * driver call, a thousand times; each child ends by _exit or by exit. */
Test(signals, a_thousand_forks_from_a_timer_handler_complete, .timeout = 240)
{
	char *endings[] = {"_exit", "exit"};
	for (int i = 0; i < 2; i++) {
		struct traced_run run;
		run_signals(&run, true, "fork_in_handler", "1000", endings[i]);
		cr_assert_eq(run.status, 0, "%s: %s", endings[i], run.err);
		cr_assert_str_eq(run.out, "forks: 1, failed: 0\n", "%s", endings[i]);
		traced_run_free(&run);
		same_with_a_report("fork_in_handler", "1000", endings[i], "exit 0", 65 * MiB);
	}
}

Test(signals, a_stack_overflow_on_a_thread_that_never_used_cuda_is_reported, .timeout = 60)
{
	same_with_a_report("overflow", "late", NULL, "signal 11", 64 * MiB);
	same_with_a_report("overflow", "early", NULL, "signal 11", 64 * MiB);
}

Test(signals, every_signal_that_ends_a_process_is_reported, .timeout = 240)
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

/* A handler of the program's puts the default action back and the fault
 * comes again: the default the program set is reported too. */
Test(signals, a_crash_reporter_that_restores_the_default_is_reported)
{
	struct traced_run run;
	run_signals(&run, true, "crash_reporter", NULL, NULL);
	cr_assert_str_eq(run.out, "crash reported\n");
	cr_assert_eq(run.status, 128 + SIGSEGV);
	traced_run_free(&run);
	same_with_a_report("crash_reporter", NULL, NULL, "signal 11", 64 * MiB);
}

/* Core files on: a signal that dumps core still does, one that does not
 * still does not (a small limit keeps the files small). */
Test(signals, the_core_dump_is_as_it_would_have_been, .timeout = 60)
{
	char dir[] = "/tmp/vramtrace-core.XXXXXX", cwd[4096];
	cr_assert(mkdtemp(dir) && getcwd(cwd, sizeof(cwd)));
	cr_assert(chdir(dir) == 0);
	struct rlimit small = {4096, 4096};
	cr_assert(setrlimit(RLIMIT_CORE, &small) == 0);
	same_with_a_report("raise", "3", "main", "signal 3", 64 * MiB);
	same_with_a_report("raise", "15", "main", "signal 15", 64 * MiB);
	same_with_a_report("overflow", "late", NULL, "signal 11", 64 * MiB);
	cr_assert(chdir(cwd) == 0);
	char command[200];
	snprintf(command, sizeof(command), "rm -rf '%s'", dir);
	cr_assert_eq(system(command), 0);
}

Test(signals, the_endings_that_skip_destructors_are_reported, .timeout = 60)
{
	same_with_a_report("quick_exit", "7", NULL, "exit 7", 64 * MiB);
	same_with_a_report("_Exit", "8", NULL, "exit 8", 64 * MiB);
	same_with_a_report("exit_group", "9", NULL, "exit 9", 64 * MiB);
}

Test(signals, a_signal_the_program_ignores_or_handles_stays_its_own)
{
	struct traced_run run;
	run_signals(&run, true, "kept", NULL, NULL);
	cr_assert_str_eq(run.out, "handled 1, SIGHUP the program's, SIGUSR1 ignored, SIGTERM "
				  "default\n");
	traced_run_free(&run);
	same_with_a_report("kept", NULL, NULL, "exit 0", 64 * MiB);
}

/* Two ending signals on two threads at once: the process dies of the one
 * whose report was written, as it would die of the first without. */
Test(signals, two_signals_at_once_end_the_process_by_the_one_reported, .timeout = 120)
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
