/* Never harm the host, never lose the report: every way a process ends,
 * fork, 16 threads at once, the driver surface with and without vramtrace,
 * loader corner cases, failures of vramtrace's own, and privacy. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

struct ending {
	const char *how;
	int status;
	const char *ended_by;
};

static const struct ending endings[] = {
	{"return", 3, "exit 3"},       {"thread", 7, "exit 7"},     {"handled", 5, "exit 5"},
	{"sigterm", 143, "signal 15"}, {"sigint", 130, "signal 2"}, {"segv", 139, "signal 11"},
	{"abort", 134, "signal 6"},    {"exec", 9, "exec"},         {"kill", 137, "checkpoint"},
	{"_exit", 4, "checkpoint"},
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

Test(robustness, the_report_survives_every_ending, .timeout = 120)
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

Test(robustness, an_emergency_report_is_a_valid_report)
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

Test(robustness, fork_children_can_stop_tracing)
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

Test(robustness, sixteen_threads_two_devices_exact, .timeout = 240)
{
	struct traced_run run;
	char dump[600];
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMSIM_DEVICES=2", NULL},
	};
	snprintf(dump, sizeof(dump), "/tmp/vramtrace-stress-dump.%d.%%p.json", (int)getpid());
	traced_run(&run, &options, (char *[]){(char *)program_path("stress"), dump, NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *r = run.report;
	int64_t allocations =
		report_int(r, "devices/0/allocations") + report_int(r, "devices/1/allocations");
	cr_assert_eq(allocations, 16 * 5000 + 16);
	cr_assert_eq(report_int(r, "devices/0/frees") + report_int(r, "devices/1/frees"),
		     16 * 5000);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 64 * MiB, "1+3+...+15 MiB");
	cr_assert_eq(report_int(r, "devices/1/live_at_exit_bytes"), 72 * MiB, "2+4+...+16 MiB");
	cr_assert_eq(report_int(r, "tracer/events"), 2 * 16 * 5000 + 16);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
	size_t i;
	json_t *tag;
	int64_t thread_bytes = 0;
	for (int d = 0; d < 2; d++) {
		char path[32];
		snprintf(path, sizeof(path), "devices/%d/tags", d);
		json_array_foreach (report_at(r, path), i, tag) {
			const char *name = json_string_value(json_object_get(tag, "tag"));
			int64_t live =
				json_integer_value(json_object_get(tag, "live_at_exit_bytes"));
			if (strncmp(name, "thread", 6) == 0) {
				cr_assert_eq(live, (atoi(name + 6) + 1) * MiB, "%s", name);
				thread_bytes += live;
			} else {
				cr_assert_eq(live, 0, "%s", name);
			}
		}
	}
	cr_assert_eq(thread_bytes, 136 * MiB);
	char command[700];
	snprintf(command, sizeof(command),
		 "ls /tmp/vramtrace-stress-dump.%d.* >/dev/null && "
		 "rm -f /tmp/vramtrace-stress-dump.%d.*",
		 (int)getpid(), (int)getpid());
	cr_assert_eq(system(command), 0, "the dumps were written");
	traced_run_free(&run);
}

static void run_both(const char *program, const char *argument, struct traced_run *with,
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

Test(robustness, the_driver_surface_is_unchanged)
{
	struct traced_run with, without;
	run_both("driver_passthrough", NULL, &with, &without);
	cr_assert_eq(with.status, 0, "%s", with.err);
	cr_assert_str_eq(with.out, without.out);
	cr_assert(strstr(with.out, "cuMemFree(p) again                       rc=1    errno=777"),
		  "%s", with.out);
	cr_assert_eq(report_int(with.report, "devices/0/live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(with.report, "tracer/unknown_frees"), 4);
	traced_run_free(&with);
	traced_run_free(&without);
}

Test(robustness, loader_corner_cases)
{
	struct traced_run with, without;
	char deep[600];
	snprintf(deep, sizeof(deep), "%s", program_path("libdeepalloc.so"));
	run_both("loader", deep, &with, &without);
	cr_assert_eq(with.status, 0, "%s", with.err);
	cr_assert_str_eq(with.out, without.out, "dlsym(RTLD_NEXT) and dlvsym see the same");
	cr_assert(strstr(with.out, "lib: next malloc is the default one: 1"));
	cr_assert(strstr(with.err, "was loaded with RTLD_DEEPBIND"), "%s", with.err);
	cr_assert_eq(report_int(with.report, "devices/0/bytes_allocated"), 24 * MiB,
		     "the constructor's 16 MiB before main and the deep-bound library's 8 MiB");
	traced_run_free(&with);
	traced_run_free(&without);
}

Test(robustness, with_the_address_sanitizer)
{
	if (access(program_path("asan"), X_OK) != 0)
		cr_skip_test("no -fsanitize=address here");
	struct traced_run run;
	struct run_options options = {0};
	traced_run(&run, &options,
		   (char *[]){(char *)build_path("VT_TEST_TOOL"), "run", "--simulate", "--",
			      (char *)program_path("asan"), NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 32 * MiB);
	traced_run_free(&run);
}

Test(robustness, an_unwritable_output_is_said_in_one_line)
{
	struct traced_run run;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.output_name = "no/such/dir/report.json",
	};
	traced_run(&run, &options, (char *[]){(char *)program_path("ending"), "return", NULL});
	cr_assert_eq(run.status, 3, "the program's own status");
	cr_assert_eq(run.reports, 0);
	char expected[600];
	snprintf(expected, sizeof(expected),
		 "vramtrace: cannot write the report to %s/no/such/dir/report.json: No such file "
		 "or directory; no report written\n",
		 run.dir);
	cr_assert_str_eq(run.err, expected, "one line, and no report dumped on stderr");
	traced_run_free(&run);
}

Test(robustness, privacy)
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

Test(robustness, fork_while_other_threads_hold_locks, .timeout = 120)
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
