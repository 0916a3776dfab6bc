/* The device's own view beside what the hooks saw: NVML's used bytes, and
 * the unexplained rest (the context, rounding, memory no hook saw); without
 * NVML a note, not an error. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

/* The view of the view program (run with argument, or none), with memory
 * no hook saw, given as every VRAMSIM_* size is, with its unit. */
static void expect_the_whole_view(const char *argument)
{
	struct traced_run run;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMSIM_HIDDEN_BYTES=117.5 MiB", NULL},
	};
	traced_run(&run, &options,
		   (char *[]){(char *)program_path("view"), (char *)argument, NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *view = report_at(run.report, "devices/0/device_view");
	int64_t tracked = 101 * MiB + 3, used = 512 * MiB + 104 * MiB + 117 * MiB + MiB / 2;
	cr_assert_str_eq(report_string(view, "source"), "nvml process");
	cr_assert_gt(report_int(view, "samples"), 1);
	cr_assert_eq(report_int(view, "tracked_at_sample_bytes"), tracked);
	cr_assert_eq(report_int(view, "used_at_tracked_peak_bytes"), used);
	cr_assert_eq(report_int(view, "peak_used_bytes"), used);
	cr_assert_eq(report_int(view, "unexplained_at_peak_bytes"), used - tracked,
		     "context + rounding + hidden");
	cr_assert_str_eq(report_string(run.report, "tracer/nvml"), "available");
	traced_run_free(&run);
}

/* NVML sees the context, the rounding of every allocation to the device's
 * granularity, and memory no hook saw; the report says exactly how much. */
Test(device_view, the_unexplained_bytes_are_nvmls_used_less_the_tracked)
{
	expect_the_whole_view(NULL);
}

/* NVML counts its initializations: a program that initializes it and shuts
 * it down again, as one reading NVML for itself does, leaves vramtrace's
 * own initialization standing, and the view sees everything after. */
Test(device_view, a_program_s_own_nvml_shutdown_leaves_the_view_whole)
{
	struct both runs;
	run_both(&runs, "view", "own-nvml", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_str_eq(runs.with.out, "nvmlShutdown = 0\nview: ok\n");
	free_both(&runs);
	expect_the_whole_view("own-nvml");
}

Test(device_view, without_nvml_the_view_is_noted_not_an_error)
{
	struct traced_run run;
	trace_program(&run, "view", (const char *const[]){"VRAMTRACE_SAMPLE_MS=0", NULL});
	cr_assert(json_is_object(report_at(run.report, "devices/0/device_view")),
		  "one sample at exit even when the sampler is off");
	traced_run_free(&run);
	/* The simulated driver and runtime without the simulated NVML. */
	char dir[] = "/tmp/vt-no-nvml.XXXXXX", command[1200];
	cr_assert(mkdtemp(dir));
	snprintf(command, sizeof(command), "ln -s %s/libcuda.so.1 %s/libcudart.so.13 %s/",
		 build_path("VT_TEST_SIM_DIR"), build_path("VT_TEST_SIM_DIR"), dir);
	cr_assert_eq(system(command), 0);
	struct run_options options = {.preload = true, .library_path = dir};
	traced_run(&run, &options, (char *[]){(char *)program_path("view"), NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(json_is_null(report_at(run.report, "devices/0/device_view")));
	cr_assert_str_eq(report_string(run.report, "tracer/nvml"), "no libnvidia-ml.so.1");
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 101 * MiB + 3);
	cr_assert_null(strstr(run.err, "vramtrace:"), "no warning: %s", run.err);
	traced_run_free(&run);
	remove_tree(dir);
}
