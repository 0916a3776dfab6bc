/* With and without vramtrace the same: what the runtime's and the driver's
 * calls return (codes, values, errno, their output line by line), a
 * program without CUDA untouched, and the toolkit's runtime without a
 * driver failing as it would. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static void run_both_with_options(const char *program, struct run_options options,
				  struct traced_run *with, struct traced_run *without)
{
	char *argv[] = {(char *)program_path(program), (char *)"argument", NULL};
	options.preload = true;
	traced_run(with, &options, argv);
	options.preload = false;
	traced_run(without, &options, argv);
}

Test(passthrough, same_codes_values_and_errno_with_and_without)
{
	struct traced_run with, without;
	run_both_with_options("passthrough", (struct run_options){.simulate = true}, &with,
			      &without);
	cr_assert_eq(with.status, 0);
	cr_assert_str_eq(with.out, without.out);
	cr_assert(strstr(with.out, "cudaFree(p) twice                  rc=1   errno=4242"));
	json_t *r = with.report;
	cr_assert_eq(report_int(r, "devices/0/allocations"), 5);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(r, "devices/0/failed_allocations"), 3);
	/* Bad flags; cudaMallocHost(&h, 0) succeeds with nothing allocated. */
	cr_assert_eq(report_int(r, "host/failed_allocations"), 1);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 6);
	traced_run_free(&with);
	traced_run_free(&without);
}

Test(passthrough, runtime_surface_behaves_as_cuda_with_and_without)
{
	struct traced_run with, without;
	run_both_with_options("runtime_surface", (struct run_options){.simulate = true}, &with,
			      &without);
	cr_assert_eq(without.status, 0, "%s", without.out);
	cr_assert_eq(with.status, 0, "%s", with.out);
	cr_assert_str_eq(with.out, without.out);
	cr_assert_null(strstr(with.out, "FAILED"));
	cr_assert_eq(report_int(with.report, "devices/0/live_at_exit_bytes"), 0);
	/* Registered pages are shown, never counted as new memory. */
	json_t *registered = report_kind(with.report, "host", "host_registered");
	cr_assert_eq(report_int(registered, "bytes_allocated"), 8192);
	cr_assert_eq(report_int(registered, "live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(with.report, "host/peak/bytes"), 4096, "only the pinned 4 KiB");
	cr_assert_eq(report_int(with.report, "host/allocations"), 1);
	traced_run_free(&with);
	traced_run_free(&without);
}

Test(passthrough, the_driver_surface_returns_the_same_with_and_without)
{
	struct traced_run with, without;
	run_both_with_summary("driver_passthrough", NULL, &with, &without);
	cr_assert_eq(with.status, 0, "%s", with.err);
	cr_assert_str_eq(with.out, without.out);
	cr_assert(strstr(with.out, "cuMemFree(p) again                       rc=1    errno=777"),
		  "%s", with.out);
	cr_assert_eq(report_int(with.report, "devices/0/live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(with.report, "tracer/unknown_frees"), 4);
	traced_run_free(&with);
	traced_run_free(&without);
}

Test(passthrough, a_program_without_cuda_is_untouched_and_writes_no_report)
{
	struct traced_run with, without;
	run_both_with_options("no_cuda", (struct run_options){.simulate = true}, &with, &without);
	cr_assert_eq(with.status, 3);
	cr_assert_eq(without.status, 3);
	cr_assert_str_eq(with.out, without.out);
	cr_assert_str_eq(with.err, without.err);
	cr_assert_eq(with.reports, 0, "a process that never used CUDA writes no report");
	traced_run_free(&with);
	traced_run_free(&without);
}

Test(passthrough, the_toolkits_runtime_without_a_driver_fails_as_without)
{
	if (access(program_path("no_driver"), X_OK) != 0)
		cr_skip_test("the toolkit's libcudart was not found at build time");
	struct traced_run with, without;
	struct run_options options = {.library_path = build_path("VT_TEST_CUDA_LIBDIR")};
	run_both_with_options("no_driver", options, &with, &without);
	cr_assert_eq(without.status, 35, "%s", without.err);
	cr_assert_eq(with.status, 35, "%s", with.err);
	cr_assert_str_eq(with.out, "no_driver: rc=35 p=0x1 last=35\n");
	cr_assert_str_eq(with.out, without.out);
	cr_assert_str_eq(with.err, "");
	cr_assert_eq(with.reports, 0, "nothing reached a driver, so nothing is recorded");
	traced_run_free(&with);
	traced_run_free(&without);
}
