/* However a program reaches CUDA it is traced: linked with the runtime or
 * with -lcuda, the driver opened by dlopen (closed and opened again too, or
 * into a namespace of its own by dlmopen) or its functions got by version,
 * a kernel built by nvcc or by NVRTC, NVIDIA's static runtime (a clear word
 * instead); and the loader's ways stay the program's:
 * dlsym's scope, RTLD_NEXT and dlvsym, RTLD_DEEPBIND, a shim exporting the
 * driver's names, a constructor before main, AddressSanitizer first among
 * the preloads. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

static long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* How many events of a kind, and the last one's bytes. */
static unsigned count_events(json_t *events, const char *event, long *last_bytes)
{
	unsigned count = 0;
	size_t i;
	json_t *entry;
	json_array_foreach (events, i, entry) {
		if (strcmp(json_string_value(json_object_get(entry, "event")), event) != 0)
			continue;
		count++;
		*last_bytes = (long)json_integer_value(json_object_get(entry, "bytes"));
	}
	return count;
}

Test(loader, an_nvcc_program_launching_a_kernel_is_traced)
{
	if (access(program_path("kernel_launch"), X_OK) != 0)
		cr_skip_test("nvcc was not found at build time");
	struct traced_run run;
	trace_program(&run, "kernel_launch", NULL);
	cr_assert(strstr(run.out, "kernel_launch: ok"));
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 32 * MiB);
	cr_assert_eq(report_int(run.report, "devices/0/live_at_exit_bytes"), 0);
	traced_run_free(&run);
}

Test(loader, a_driver_api_program_linked_with_lcuda_is_traced)
{
	struct traced_run run;
	trace_program(&run, "driver_api", NULL);
	json_t *r = run.report;
	cr_assert(strstr(run.out, "driver_api: pitch=512"));
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 64 * MiB + 51200);
	cr_assert_str_eq(report_string(r, "devices/0/peak/api"), "cuMemAllocPitch_v2");
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 51200);
	cr_assert_eq(report_int(r, "host/peak/bytes"), 3 * MiB);
	cr_assert_eq(report_int(r, "host/live_at_exit_bytes"), 2 * MiB);
	cr_assert_str_eq(report_string(r, "host/peak/api"), "cuMemAllocHost_v2");
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 1, "the double free");
	cr_assert(json_is_null(report_at(r, "run/cuda/runtime")), "no runtime in this program");
	traced_run_free(&run);
}

Test(loader, driver_functions_got_by_version_are_traced)
{
	struct traced_run run;
	trace_program(&run, "entry_point", NULL);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 128 * MiB);
	cr_assert_str_eq(report_string(r, "devices/0/peak/api"), "cuMemAlloc_v2");
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 96 * MiB);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 2);
	cr_assert_eq(report_int(r, "devices/0/frees"), 1);
	traced_run_free(&run);
}

Test(loader, a_program_that_opens_the_driver_itself_is_traced)
{
	struct traced_run run;
	trace_program(&run, "dlopen_driver", NULL);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 30 * MiB);
	cr_assert_str_eq(report_string(r, "devices/0/peak/api"), "cuMemAllocAsync_ptsz");
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 20 * MiB);
	json_t *async = report_kind(r, "devices/0", "async");
	cr_assert_eq(report_int(async, "live_at_exit_bytes"), 20 * MiB);
	traced_run_free(&run);
}

/* A program that probes for the driver, closes it and loads it again,
 * after something else took the addresses it had: the driver stays where
 * vramtrace first met it, so the second loading's allocations, by ABI name
 * and by cuGetProcAddress, are traced once each and nothing reaches an
 * address the driver left (which crashed). */
Test(loader, a_driver_closed_and_opened_again_is_traced)
{
	struct both runs;
	run_both(&runs, "reopen_driver", NULL, NULL, NULL);
	same_behaviour(&runs);
	cr_assert_eq(runs.with.status, 0, "%s", runs.with.err);
	cr_assert_str_eq(runs.with.out, "reopen_driver: ok\n");
	json_t *r = runs.with.report;
	cr_assert(r, "no report: %s", runs.with.err);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 2);
	cr_assert_eq(report_int(r, "devices/0/bytes_allocated"), 24 * MiB);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 24 * MiB);
	free_both(&runs);
}

/* A driver loaded with dlmopen into a namespace of its own: its
 * allocations are in the report, on their device (they were all dropped,
 * their device unknown, as vramtrace asked the main namespace for it). */
Test(loader, a_driver_in_a_namespace_of_its_own_is_traced)
{
	struct both runs;
	run_both(&runs, "dlmopen_driver", NULL, NULL, NULL);
	same_behaviour(&runs);
	cr_assert_eq(runs.with.status, 0, "%s", runs.with.err);
	cr_assert_str_eq(runs.with.out, "dlmopen_driver: ok\n");
	json_t *r = runs.with.report;
	cr_assert(r, "no report: %s", runs.with.err);
	cr_assert_eq(report_int(r, "tracer/dropped"), 0);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 2);
	cr_assert_eq(report_int(r, "devices/0/bytes_allocated"), 24 * MiB);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 24 * MiB);
	free_both(&runs);
}

/* What a real program does beyond allocating runs to the end on the
 * simulated device: kernels with occupancy, a texture over an array filled
 * by cudaMemcpyToArray, a graph with kernel and copy nodes, mapped pinned
 * memory, an IPC event handle and a fat binary launched through the driver
 * API, then as a library through the runtime. The figures: 64 MiB live
 * throughout, a 4 MiB array beside it (the peak), 4 MiB from cuMemAlloc and
 * 4 MiB from cudaMalloc later, 16 MiB of pinned host memory; and, through
 * CUPTI, the program's own module and the fat binary loaded twice. */
Test(loader, real_world_program_runs_to_the_end)
{
	if (access(program_path("real_world"), X_OK) != 0)
		cr_skip_test("nvcc was not found at build time");
	struct traced_run run;
	const char *env[] = {"VRAMTRACE_SOURCES=both", NULL};
	struct run_options options = {.preload = true, .simulate = true, .env = env};
	char *fatbin = strdup(program_path("module_kernels.fatbin"));
	char *argv[] = {(char *)program_path("real_world"), fatbin, NULL};
	traced_run(&run, &options, argv);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.out, "real_world: ok"));
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 68 * MiB);
	cr_assert_str_eq(report_string(r, "devices/0/peak/api"), "cudaMallocArray");
	cr_assert_eq(report_int(r, "devices/0/allocations"), 4);
	cr_assert_eq(report_int(r, "devices/0/frees"), 4);
	cr_assert_eq(report_int(r, "devices/0/bytes_allocated"), 76 * MiB);
	cr_assert_eq(report_int(report_kind(r, "devices/0", "array"), "peak_bytes"), 4 * MiB);
	cr_assert_eq(report_int(report_kind(r, "devices/0", "device"), "peak_bytes"), 68 * MiB);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(report_kind(r, "host", "pinned_host"), "peak_bytes"), 16 * MiB);
	long bytes = -1;
	json_t *events = report_at(r, "resources/events");
	cr_assert_eq(count_events(events, "module_loaded", &bytes), 3);
	cr_assert_eq(bytes, file_size(fatbin), "the fat binary's size, %ld", bytes);
	cr_assert_eq(count_events(events, "module_unloading", &bytes), 2);
	free(fatbin);
	traced_run_free(&run);
}

/* A third-party driver-API program: libcuda by dlopen, its kernel compiled
 * by NVRTC (the toolkit's own), linked by the driver's JIT linker and run,
 * through the older ABI names; its one 64 MiB buffer is exactly what
 * vramtrace shows, and the simulated device has nothing to say. */
Test(loader, nvrtc_program_links_and_runs)
{
	char nvrtc[600];
	snprintf(nvrtc, sizeof(nvrtc), "%s/libnvrtc.so.13", build_path("VT_TEST_CUDA_LIBDIR"));
	if (access(nvrtc, R_OK) != 0)
		cr_skip_test("the toolkit has no %s", nvrtc);
	struct traced_run run;
	struct run_options options = {.preload = true,
				      .simulate = true,
				      .env = (const char *const[]){"VRAMSIM_VERBOSE=1", NULL}};
	traced_run(&run, &options, (char *[]){(char *)program_path("nvrtc_jit"), nvrtc, NULL});
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	cr_assert(strstr(run.out, "nvrtc_jit: ok"), "%s", run.out);
	cr_assert_null(strstr(run.err, "vramsim:"), "%s", run.err);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 64 * MiB);
	cr_assert_str_eq(report_string(r, "devices/0/peak/api"), "cuMemAlloc_v2");
	cr_assert_eq(report_int(r, "devices/0/allocations"), 1);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 0);
	traced_run_free(&run);
}

/* A program carrying NVIDIA's own runtime asks for the driver's private
 * tables, which the simulated device does not have: it fails as on a
 * machine without a usable driver (cudaErrorNoDevice, not "invalid
 * argument"), the simulated device says why once, and vramtrace still
 * writes its report, whose summary says why it is empty. */
Test(loader, static_runtime_gets_a_clear_word)
{
	if (access(program_path("kernel_launch_static"), X_OK) != 0)
		cr_skip_test("nvcc was not found at build time");
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true};
	char *argv[] = {(char *)program_path("kernel_launch_static"), NULL};
	traced_run(&run, &options, argv);
	cr_assert_eq(run.status, 1, "the program's own failure, exit 1: %s", run.err);
	const char *word = "carries its own copy of NVIDIA's CUDA runtime";
	const char *first = strstr(run.err, word);
	cr_assert(first, "no word on stderr: %s", run.err);
	cr_assert_null(strstr(first + 1, word), "said more than once: %s", run.err);
	cr_assert(strstr(run.err, "nvcc -cudart shared"), "%s", run.err);
	/* As on a machine without a usable driver, and the summary says so. */
	cr_assert(strstr(run.err, "kernel_launch: cudaMalloc: cudaErrorNoDevice\n"), "%s", run.err);
	cr_assert(run.report, "no report: %s", run.err);
	cr_assert(json_is_null(report_at(run.report, "run/cuda/driver")));
	cr_assert_eq(json_array_size(report_at(run.report, "devices")), 0);
	cr_assert_eq(report_int(run.report, "tracer/events"), 0);
	traced_run_free(&run);
}

Test(loader, dlsym_looks_up_in_the_callers_scope_and_cuda_is_absent_until_loaded)
{
	struct both runs;
	run_both(&runs, "scope", NULL, NULL, NULL);
	same_behaviour(&runs);
	cr_assert_eq(runs.with.status, 0, "%s", runs.with.err);
	const char *out = runs.with.out;
	cr_assert(strstr(out, "without CUDA: cudaMalloc absent, through the program's handle "
			      "absent\n"),
		  "%s", out);
	cr_assert(strstr(out, "without CUDA: cuMemAlloc_v2 absent, through the program's "
			      "handle absent\n"));
	cr_assert(strstr(out, "outer: scope_inner_value = 7\n"), "a local dependency is seen");
	cr_assert(strstr(out, "outer: cu_scope_inner_value = 11\n"));
	cr_assert(strstr(out, "with the driver: cudaMalloc absent"));
	cr_assert(strstr(out, "with the driver: cuMemAlloc_v2 found"));
	cr_assert(strstr(out, "with the runtime: cudaMalloc found"));
	cr_assert(!strstr(out, "no dlerror"), "every NULL comes with its dlerror");
	cr_assert_eq(runs.with.reports, 0, "no CUDA call was made");
	free_both(&runs);
}

Test(loader, each_lookup_reaches_the_library_it_asked)
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

Test(loader, rtld_next_and_dlvsym_see_the_same_and_constructor_and_deepbind_memory_counts)
{
	struct traced_run with, without;
	char deep[600];
	snprintf(deep, sizeof(deep), "%s", program_path("libdeepalloc.so"));
	run_both_with_summary("loader", deep, &with, &without);
	cr_assert_eq(with.status, 0, "%s", with.err);
	cr_assert_str_eq(with.out, without.out, "dlsym(RTLD_NEXT) and dlvsym see the same");
	cr_assert(strstr(with.out, "lib: next malloc is the default one: 1"));
	cr_assert(strstr(with.err, "was loaded with RTLD_DEEPBIND"), "%s", with.err);
	cr_assert_eq(report_int(with.report, "devices/0/bytes_allocated"), 24 * MiB,
		     "the constructor's 16 MiB before main and the deep-bound library's 8 MiB");
	traced_run_free(&with);
	traced_run_free(&without);
}

Test(loader, an_address_sanitizer_program_runs_under_vramtrace_run)
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
