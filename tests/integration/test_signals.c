/* The program's signals stay its own (tests/integration/programs/signals.c,
 * hostile.c): its handlers run on the stack it asked for, a signal it
 * ignores or handles stays so, a crash reporter that puts the default
 * action back is reported, and a runtime that recovers from SIGSEGV goes on
 * being traced; each compared with the same run without vramtrace. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

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

/* A signal that comes while such a handler runs (moved off the tracer's
 * alternate stack) lands below it, as it would on the thread's stack: it
 * once landed at the alternate stack's top, over the first one's frame. */
Test(signals, a_signal_within_a_handler_lands_below_it, .timeout = 60)
{
	struct traced_run run;
	run_signals(&run, true, "nested", NULL, NULL);
	cr_assert_eq(run.status, 0, "%d: %s", run.status, run.err);
	char expected[1024] = "";
	for (int i = 0; i < 3; i++)
		strcat(expected,
		       " outer\n  inner\n outer again, frame kept 1\n  recursion 4, frame "
		       "kept 1\n  recursion 3, frame kept 1\n  recursion 2, frame kept 1\n  "
		       "recursion 1, frame kept 1\n");
	strcat(expected, "nested: done\n");
	cr_assert_str_eq(run.out, expected);
	traced_run_free(&run);
	same_with_a_report("nested", NULL, NULL, "exit 0", 64 * MiB);
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

/* While the tracer's thread wrote a checkpoint, its symbolizing swapped
 * SIGSEGV's action for its own: the program's queries were answered with
 * the tracer's handler, and the action it set meanwhile was undone when
 * the swap was put back. */
Test(signals, the_programs_fault_actions_stay_its_own_while_a_checkpoint_is_written, .timeout = 30)
{
	struct run_options options = {
		.simulate = true, .env = (const char *const[]){"VRAMTRACE_CHECKPOINT_S=1", NULL}};
	char *argv[] = {(char *)program_path("signals"), "actions_while_reporting", NULL};
	struct traced_run with, without;
	traced_run(&without, &options, argv);
	options.preload = true;
	traced_run(&with, &options, argv);
	cr_assert_str_eq(without.out, "wrong answers: 0\nthe last handler set ran\n");
	cr_assert_str_eq(with.out, without.out, "%s", with.err);
	cr_assert_eq(with.status, 0);
	cr_assert_eq(with.reports, 1, "%s", with.err);
	cr_assert_eq(report_int(with.report, "devices/0/peak/bytes"), 64 * MiB);
	traced_run_free(&with);
	traced_run_free(&without);
}

Test(signals, a_recovered_sigsegv_does_not_end_the_trace)
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

/* A handler that siglongjmps out of a fault the driver took inside a CUDA
 * call leaves that call unfinished: it stayed counted as in progress, and
 * every later call on the thread looked nested inside it, unrecorded. */
Test(signals, a_thread_that_left_a_call_by_siglongjmp_goes_on_being_traced)
{
	struct both runs;
	run_both(&runs, "hostile", "fault_in_call", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_eq(runs.with.status, 0, "%s", runs.with.err);
	cr_assert_str_eq(runs.with.out, "recovered\n");
	cr_assert_eq(runs.with.reports, 1);
	cr_assert_eq(report_int(runs.with.report, "devices/0/peak/bytes"), 96 * MiB,
		     "the 32 MiB and the 64 MiB allocated after the recovery");
	cr_assert_str_eq(report_string(runs.with.report, "devices/0/peak/api"), "cudaMalloc");
	cr_assert_eq(
		report_int(report_kind(runs.with.report, "devices/0", "managed"), "peak_bytes"),
		32 * MiB);
	free_both(&runs);
}

/* A query returns what it returns without vramtrace, the flags, mask and
 * restorer glibc and the kernel keep included, also where the tracer's
 * handler stands in for a default action the program set again. */
Test(signals, a_query_returns_the_action_as_the_kernel_keeps_it)
{
	struct both runs;
	run_both(&runs, "signal_calls", "queries", "cuda", NULL);
	same_behaviour(&runs);
	free_both(&runs);
}

/* signal() is glibc's: BSD's restart, save where siginterrupt said the
 * signal interrupts; SIG_ERR and numbers out of range refused with EINVAL;
 * in a process that uses CUDA and one that never does. */
Test(signals, signal_is_glibcs_siginterrupt_included)
{
	const char *modes[] = {"interrupt", "refusals"}, *uses[] = {"cuda", "never"};
	for (size_t i = 0; i < 4; i++) {
		struct both runs;
		run_both(&runs, "signal_calls", modes[i / 2], uses[i % 2], NULL);
		same_behaviour(&runs);
		free_both(&runs);
	}
}

/* glibc's other ways to set an action are glibc's too, and reach no
 * action behind the tracer's back: sigset with SIG_HOLD, sysv_signal's
 * reset, bsd_signal and ssignal, sigignore, sighold and sigrelse answer
 * and leave what they do without vramtrace. */
Test(signals, glibcs_other_calls_answer_as_glibcs)
{
	const char *uses[] = {"cuda", "never"};
	for (size_t i = 0; i < 2; i++) {
		struct both runs;
		run_both(&runs, "signal_calls", "older_calls", uses[i], NULL);
		same_behaviour(&runs);
		free_both(&runs);
	}
}

/* The default action put back by one of them still ends with a report. */
Test(signals, the_default_put_back_by_any_call_is_reported)
{
	char *calls[] = {"sigset", "sysv_signal", "bsd_signal", "__sysv_signal"};
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		same_with_a_report("default_by", calls[i], NULL, "signal 15", 64 * MiB);
}
