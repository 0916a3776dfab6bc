/* fork (tests/integration/programs/fork_child.c, fork_busy.c, signals.c): a
 * child writes its own report and never the parent's, or none when told not
 * to follow; fork while other threads hold the tracer's locks, and a
 * thousand forks from a timer's handler, never leave a child stuck. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

Test(fork, fork_children_never_write_the_parents_report)
{
	struct traced_run run;
	struct run_options options = {
		.preload = true, .simulate = true, .output_name = "report.%p.json"};
	char *argv[] = {(char *)program_path("fork_child"), NULL};
	traced_run(&run, &options, argv);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(run.reports, 2, "the parent's and the allocating child's, %u", run.reports);
	long long parent = atoll(strstr(run.out, "parent ") + 7);
	for (unsigned i = 0; i < 2; i++) {
		json_t *r = run.all[i];
		bool is_parent = report_int(r, "run/pid") == parent;
		cr_assert_eq(report_int(r, "devices/0/peak/bytes"), is_parent ? 64 * MiB : 8 * MiB);
		cr_assert_eq(report_int(r, "devices/0/allocations"), 1);
	}
	/* The child names the CUDA it used, as its parent does. */
	cr_assert_gt(report_int(run.all[0], "run/cuda/driver"), 0);
	cr_assert_eq(report_int(run.all[0], "run/cuda/driver"),
		     report_int(run.all[1], "run/cuda/driver"));
	cr_assert_eq(report_int(run.all[0], "run/cuda/runtime"),
		     report_int(run.all[1], "run/cuda/runtime"));
	traced_run_free(&run);
}

Test(fork, fork_children_can_stop_tracing)
{
	struct traced_run run;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.output_name = "report.%p.json",
		.env = (const char *const[]){"VRAMTRACE_FOLLOW_FORK=0", NULL},
	};
	traced_run(&run, &options, (char *[]){(char *)program_path("fork_child"), NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(run.reports, 1, "only the parent reports");
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 64 * MiB);
	traced_run_free(&run);
}

Test(fork, fork_while_other_threads_hold_locks_leaves_no_child_stuck, .timeout = 120)
{
	struct traced_run run;
	struct run_options options = {
		.preload = true, .simulate = true, .output_name = "report.%p.json"};
	traced_run(&run, &options, (char *[]){(char *)program_path("fork_busy"), NULL});
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	cr_assert(strstr(run.out, "0 of 200 children stuck"), "%s", run.out);
	cr_assert_eq(run.reports, 1, "the children never used CUDA");
	traced_run_free(&run);
}

/* The timer's handler lands inside the tracer (its locks, malloc) and the
 * driver call, a thousand times; each child ends by _exit or by exit. */
Test(fork, a_thousand_forks_from_a_timer_handler_complete, .timeout = 240)
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

/* Handlers the program registered with pthread_atfork before its first CUDA
 * call, that use CUDA in each phase, run as without the tracer: the
 * tracer's own take its locks after the program's prepare handlers and give
 * them back before its parent and child handlers. */
Test(fork, the_programs_fork_handlers_may_use_cuda, .timeout = 60)
{
	static const char *const phases[] = {"prepare", "parent", "child"};
	for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++) {
		struct both runs;
		run_both(&runs, "fork_handlers", phases[i], NULL, NULL);
		same_behaviour(&runs);
		cr_assert_eq(runs.with.status, 0, "%s: %s", phases[i], runs.with.err);
		cr_assert(strstr(runs.with.out, "fork_handlers: child status 0"), "%s",
			  runs.with.out);
		free_both(&runs);
	}
}
