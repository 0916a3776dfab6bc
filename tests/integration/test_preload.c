/* Programs run under the preload on the simulated device; every number in
 * their reports is asserted exactly. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)
#define GiB (1024ll * MiB)

Test(preload, sequence_peak_and_live_at_exit)
{
	struct traced_run run;
	trace_program(&run, "sequence", NULL);
	json_t *r = run.report;
	cr_assert_str_eq(report_string(r, "schema"), "vramtrace/1");
	cr_assert_eq(json_array_size(report_at(r, "devices")), 1);
	cr_assert_eq(report_int(r, "devices/0/ordinal"), 0);
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 600 * MiB);
	cr_assert_str_eq(report_string(r, "devices/0/peak/api"), "cudaMalloc");
	cr_assert_str_eq(report_string(r, "devices/0/peak/driver_api"), "cuMemAlloc_v2");
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 350 * MiB);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_allocations"), 2);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 8);
	cr_assert_eq(report_int(r, "devices/0/frees"), 6);
	cr_assert_eq(report_int(r, "devices/0/failed_allocations"), 0);
	cr_assert_eq(report_int(r, "devices/0/bytes_allocated"), 762 * MiB + 10240);
	cr_assert_eq(report_int(r, "devices/0/capacity_bytes"), 80 * GiB);
	cr_assert_str_eq(report_string(r, "devices/0/name"), "vramsim GPU 0");
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0, "cudaFree(NULL) is not a free");
	cr_assert_eq(report_int(r, "tracer/events"), 17);
	cr_assert_eq(report_int(r, "tracer/deduplicated"), 0);
	cr_assert(strstr(run.out, "sequence: pitch=1024"));
	traced_run_free(&run);
}

Test(preload, sequence_kinds)
{
	struct traced_run run;
	trace_program(&run, "sequence", NULL);
	json_t *device = report_kind(run.report, "devices/0", "device");
	json_t *managed = report_kind(run.report, "devices/0", "managed");
	json_t *async = report_kind(run.report, "devices/0", "async");
	cr_assert_eq(report_int(device, "peak_bytes"), 600 * MiB);
	cr_assert_eq(report_int(device, "at_peak_bytes"), 600 * MiB);
	cr_assert_eq(report_int(device, "live_at_exit_bytes"), 350 * MiB);
	cr_assert_eq(report_int(device, "allocations"), 6);
	cr_assert_eq(report_int(managed, "peak_bytes"), 8 * MiB);
	cr_assert_eq(report_int(managed, "at_peak_bytes"), 0);
	cr_assert_eq(report_int(async, "peak_bytes"), 4 * MiB);
	cr_assert_eq(report_int(async, "frees"), 1);
	json_t *pinned = report_kind(run.report, "host", "pinned_host");
	cr_assert_eq(report_int(pinned, "peak_bytes"), 17 * MiB);
	cr_assert_eq(report_int(run.report, "host/peak/bytes"), 17 * MiB);
	cr_assert_eq(report_int(run.report, "host/live_at_exit_bytes"), 16 * MiB);
	cr_assert_eq(report_int(run.report, "host/allocations"), 2);
	cr_assert_str_eq(report_string(run.report, "host/peak/api"), "cudaHostAlloc");
	traced_run_free(&run);
}

Test(preload, report_file_is_private)
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

Test(preload, allocation_beyond_capacity)
{
	struct traced_run run;
	trace_program(&run, "oom", (const char *const[]){"VRAMSIM_CAPACITY=16GiB", NULL});
	json_t *r = run.report;
	cr_assert(strstr(run.out, "oom: rc=2 out of memory huge=0x1"), "%s", run.out);
	cr_assert_eq(report_int(r, "devices/0/failed_allocations"), 1);
	cr_assert_eq(report_int(r, "devices/0/failures/0/bytes"), 100 * GiB);
	cr_assert_eq(report_int(r, "devices/0/failures/0/error"), 2);
	cr_assert_str_eq(report_string(r, "devices/0/failures/0/error_name"),
			 "CUDA_ERROR_OUT_OF_MEMORY");
	cr_assert_str_eq(report_string(r, "devices/0/failures/0/api"), "cudaMalloc");
	cr_assert_eq(report_int(r, "devices/0/failures/0/live_bytes"), 1 * GiB);
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 1 * GiB);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 1 * GiB);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 1);
	cr_assert_eq(report_int(r, "devices/0/capacity_bytes"), 16 * GiB);
	traced_run_free(&run);
}

Test(preload, two_devices)
{
	struct traced_run run;
	trace_program(&run, "two_devices", (const char *const[]){"VRAMSIM_DEVICES=2", NULL});
	json_t *r = run.report;
	cr_assert_eq(json_array_size(report_at(r, "devices")), 2);
	cr_assert_eq(report_int(r, "run/cuda/device_count"), 2);
	cr_assert_eq(report_int(r, "devices/0/ordinal"), 0);
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 3 * GiB);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(r, "devices/1/ordinal"), 1);
	cr_assert_str_eq(report_string(r, "devices/1/name"), "vramsim GPU 1");
	cr_assert_eq(report_int(r, "devices/1/peak/bytes"), 5 * GiB);
	cr_assert_eq(report_int(r, "devices/1/live_at_exit_bytes"), 1 * GiB);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
	traced_run_free(&run);
}

Test(preload, eight_threads_exact_totals, .timeout = 240)
{
	struct traced_run run;
	trace_program(&run, "threads", NULL);
	json_t *r = run.report;
	const int64_t pairs = 100000, kept = 36 * MiB, per_pair_sum = 4096 * 36;
	cr_assert_eq(report_int(r, "devices/0/allocations"), 8 * pairs + 8);
	cr_assert_eq(report_int(r, "devices/0/frees"), 8 * pairs);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_allocations"), 8);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), kept);
	cr_assert_eq(report_int(r, "devices/0/bytes_allocated"), kept + pairs * per_pair_sum);
	cr_assert_eq(report_int(r, "tracer/events"), 16 * pairs + 8);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
	int64_t peak = report_int(r, "devices/0/peak/bytes");
	cr_assert(peak >= kept && peak <= kept + per_pair_sum, "peak %lld", (long long)peak);
	traced_run_free(&run);
}

Test(preload, driver_api_linked_with_lcuda)
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

Test(preload, driver_entry_point_by_version)
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

Test(preload, program_that_opens_the_driver_itself)
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

Test(preload, nvcc_program_launching_a_kernel)
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

/* What a real program does beyond allocating runs to the end on the
 * simulated device: kernels with occupancy, a texture over an array filled
 * by cudaMemcpyToArray, a graph with kernel and copy nodes, mapped pinned
 * memory, an IPC event handle and a fat binary launched through the driver
 * API, then as a library through the runtime. The figures: 64 MiB live
 * throughout, a 4 MiB array beside it (the peak), 4 MiB from cuMemAlloc and
 * 4 MiB from cudaMalloc later, 16 MiB of pinned host memory; and, through
 * CUPTI, the program's own module and the fat binary loaded twice. */
Test(preload, real_world_program_runs_to_the_end)
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
Test(preload, nvrtc_program_links_and_runs)
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
Test(preload, static_runtime_gets_a_clear_word)
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

static void run_both(const char *program, struct run_options options, struct traced_run *with,
		     struct traced_run *without)
{
	char *argv[] = {(char *)program_path(program), (char *)"argument", NULL};
	options.preload = true;
	traced_run(with, &options, argv);
	options.preload = false;
	traced_run(without, &options, argv);
}

Test(preload, program_without_cuda_is_untouched)
{
	struct traced_run with, without;
	run_both("no_cuda", (struct run_options){.simulate = true}, &with, &without);
	cr_assert_eq(with.status, 3);
	cr_assert_eq(without.status, 3);
	cr_assert_str_eq(with.out, without.out);
	cr_assert_str_eq(with.err, without.err);
	cr_assert_eq(with.reports, 0, "a process that never used CUDA writes no report");
	traced_run_free(&with);
	traced_run_free(&without);
}

Test(preload, real_runtime_without_driver)
{
	if (access(program_path("no_driver"), X_OK) != 0)
		cr_skip_test("the toolkit's libcudart was not found at build time");
	struct traced_run with, without;
	struct run_options options = {.library_path = build_path("VT_TEST_CUDA_LIBDIR")};
	run_both("no_driver", options, &with, &without);
	cr_assert_eq(without.status, 35, "%s", without.err);
	cr_assert_eq(with.status, 35, "%s", with.err);
	cr_assert_str_eq(with.out, "no_driver: rc=35 p=0x1 last=35\n");
	cr_assert_str_eq(with.out, without.out);
	cr_assert_str_eq(with.err, "");
	cr_assert_eq(with.reports, 0, "nothing reached a driver, so nothing is recorded");
	traced_run_free(&with);
	traced_run_free(&without);
}

Test(preload, same_codes_values_and_errno_with_and_without)
{
	struct traced_run with, without;
	run_both("passthrough", (struct run_options){.simulate = true}, &with, &without);
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

Test(preload, runtime_surface_behaves_as_cuda_with_and_without)
{
	struct traced_run with, without;
	run_both("runtime_surface", (struct run_options){.simulate = true}, &with, &without);
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

Test(preload, multicast_objects_are_shown_not_counted_again)
{
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true};
	traced_run(&run, &options, (char *[]){(char *)program_path("multicast"), NULL});
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 8 * MiB, "the physical memory only");
	cr_assert_eq(report_int(r, "devices/0/allocations"), 1);
	json_t *multicast = report_kind(r, "devices/0", "multicast");
	cr_assert_eq(report_int(multicast, "bytes_allocated"), 8 * MiB);
	cr_assert_eq(report_int(multicast, "live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
	traced_run_free(&run);
}

/* Graph memory is the process's device memory: the 6 MiB the driver
 * reserves for the graphs counts as the kind graph beside the plain 1 MiB,
 * one reservation that grows and is trimmed away (graphs.c). */
Test(preload, graph_memory_counts_in_the_device_peak)
{
	struct traced_run run;
	trace_program(&run, "graphs", NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 7 * MiB);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 2);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 0, "freed, and trimmed");
	json_t *graph = report_kind(r, "devices/0", "graph");
	cr_assert_eq(report_int(graph, "peak_bytes"), 6 * MiB);
	cr_assert_eq(report_int(graph, "at_peak_bytes"), 6 * MiB);
	cr_assert_eq(report_int(graph, "allocations"), 1);
	cr_assert_eq(report_int(graph, "frees"), 1, "trimmed");
	cr_assert_eq(report_int(graph, "live_at_exit_bytes"), 0);
	json_t *graphs = report_at(r, "devices/0/graph_memory");
	cr_assert_eq(report_int(graphs, "reserved_bytes"), 0, "after the trim");
	cr_assert_eq(report_int(graphs, "reserved_peak_bytes"), 6 * MiB);
	cr_assert_eq(report_int(graphs, "used_bytes"), 0);
	cr_assert_eq(report_int(graphs, "used_peak_bytes"), 6 * MiB);
	traced_run_free(&run);
}

/* An upload reserves the graph's memory before any launch: the peak is set
 * there, by cuGraphUpload, and the launch after it adds nothing
 * (graph_upload.c). */
Test(preload, graph_upload_reserves_before_the_launch)
{
	struct traced_run run;
	trace_program(&run, "graph_upload", NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 8 * MiB);
	cr_assert_str_eq(report_string(r, "devices/0/peak/driver_api"), "cuGraphUpload");
	json_t *graph = report_kind(r, "devices/0", "graph");
	cr_assert_eq(report_int(graph, "allocations"), 1, "one reservation, made at the upload");
	cr_assert_eq(report_int(r, "devices/0/graph_memory/reserved_peak_bytes"), 8 * MiB);
	cr_assert_eq(report_int(r, "devices/0/graph_memory/used_peak_bytes"), 8 * MiB);
	traced_run_free(&run);
}

/* Memory from a pool is on the pool's device, not the current one
 * (pool_devices.c). */
Test(preload, pool_allocations_land_on_the_pools_device)
{
	struct traced_run run;
	const char *env[] = {"VRAMSIM_DEVICES=2", NULL};
	trace_program(&run, "pool_devices", env);
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	cr_assert_str_eq(run.out, "device 1 gave the pool 4 MiB\n");
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), MiB);
	cr_assert_eq(json_array_size(report_at(r, "devices/0/pools")), 0);
	cr_assert_eq(report_int(r, "devices/1/ordinal"), 1);
	cr_assert_eq(report_int(r, "devices/1/peak/bytes"), 4 * MiB);
	cr_assert_eq(report_int(r, "devices/1/frees"), 1);
	cr_assert_eq(json_array_size(report_at(r, "devices/1/pools")), 1);
	cr_assert_eq(report_int(r, "devices/1/pools/0/reserved_peak_bytes"), 4 * MiB);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
	traced_run_free(&run);
}

/* cudaMallocAsync captured into a graph is an allocation node, not an
 * allocation: it counts as the graph memory its launches take (capture.c). */
Test(preload, captured_stream_ordered_memory_is_graph_memory)
{
	struct traced_run run;
	trace_program(&run, "capture", NULL);
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 9 * MiB,
		     "the 3 MiB made outside the capture and 6 MiB of graph memory");
	cr_assert_eq(report_int(report_kind(r, "devices/0", "graph"), "at_peak_bytes"), 6 * MiB);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 3, "two, and the graph's reservation");
	cr_assert_eq(report_int(r, "devices/0/frees"), 3);
	cr_assert_eq(report_int(report_kind(r, "devices/0", "async"), "bytes_allocated"), 2 * MiB);
	cr_assert_eq(report_int(r, "devices/0/failed_allocations"), 1, "in the broken capture");
	cr_assert_eq(report_int(r, "devices/0/failures/0/error"), 901);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
	json_t *graphs = report_at(r, "devices/0/graph_memory");
	cr_assert_eq(report_int(graphs, "reserved_peak_bytes"), 6 * MiB);
	cr_assert_eq(report_int(graphs, "used_peak_bytes"), 6 * MiB);
	cr_assert_eq(report_int(graphs, "reserved_bytes"), 0, "after the trim");
	traced_run_free(&run);
}

/* A mapped buffer of external memory is shown, never owned (external.c). */
Test(preload, external_memory_is_shown_not_owned)
{
	struct traced_run run;
	trace_program(&run, "external", NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), MiB);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 1);
	json_t *external = report_kind(r, "devices/0", "external");
	cr_assert_eq(report_int(external, "bytes_allocated"), 4 * MiB + 360448);
	cr_assert_eq(report_int(external, "allocations"), 2);
	cr_assert_eq(report_int(external, "live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
	traced_run_free(&run);
}

/* Each array at the size the driver says it needs (see arrays.c). */
Test(preload, arrays_at_the_drivers_size)
{
	struct traced_run run;
	trace_program(&run, "arrays", NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 10754048);
	cr_assert_str_eq(report_string(r, "devices/0/peak/api"), "cuArrayCreate_v2");
	cr_assert_eq(report_int(r, "devices/0/allocations"), 4);
	cr_assert_eq(report_int(r, "devices/0/frees"), 4);
	cr_assert_eq(report_int(r, "devices/0/failed_allocations"), 0);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 0);
	json_t *arrays = report_kind(r, "devices/0", "array");
	cr_assert_eq(report_int(arrays, "peak_bytes"), 10754048);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
	traced_run_free(&run);
}

/* program exports 6 MiB to a child it runs, which imports it beside 1 MiB
 * of its own: the importer shows the 6 MiB as kind but owns only its 1 MiB.
 * importer_unknown_frees counts the frees CUDA refused in the importer. */
static void check_import(const char *program, const char *kind, int64_t importer_unknown_frees)
{
	struct traced_run run;
	struct run_options options = {
		.preload = true, .simulate = true, .output_name = "report.%p.json"};
	traced_run(&run, &options, (char *[]){(char *)program_path(program), NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(run.reports, 2, "the exporter's and the importer's");
	for (unsigned i = 0; i < 2; i++) {
		json_t *r = run.all[i];
		bool importer = report_int(r, "devices/0/peak/bytes") == MiB;
		cr_assert(importer || report_int(r, "devices/0/peak/bytes") == 6 * MiB);
		cr_assert_eq(report_int(r, "devices/0/allocations"), 1);
		cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 0);
		cr_assert_eq(report_int(r, "tracer/unknown_frees"),
			     importer ? importer_unknown_frees : 0);
		if (!importer)
			continue;
		json_t *imported = report_kind(r, "devices/0", kind);
		cr_assert_eq(report_int(imported, "bytes_allocated"), 6 * MiB);
		cr_assert_eq(report_int(imported, "live_at_exit_bytes"), 0);
	}
	traced_run_free(&run);
}

/* The importer's refused cudaFree of the import is its one unknown free. */
Test(preload, ipc_import_is_shown_not_owned)
{
	check_import("ipc", "ipc_import", 1);
}

Test(preload, pool_import_is_shown_not_owned)
{
	check_import("pool_ipc", "pool_import", 0);
}

Test(preload, fork_children_never_write_the_parents_report)
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
	traced_run_free(&run);
}

/* NVML sees the context, the rounding of every allocation to the device's
 * granularity, and memory no hook saw; the report says exactly how much. */
Test(preload, device_view_and_unexplained_bytes)
{
	struct traced_run run;
	trace_program(&run, "view", (const char *const[]){"VRAMSIM_HIDDEN_BYTES=123456789", NULL});
	json_t *view = report_at(run.report, "devices/0/device_view");
	int64_t tracked = 101 * MiB + 3, used = 512 * MiB + 104 * MiB + 123456789;
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

Test(preload, without_nvml_the_view_is_noted_not_an_error)
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
	snprintf(command, sizeof(command), "rm -rf %s", dir);
	cr_assert_eq(system(command), 0);
}

static void check_vmm(const char *argument)
{
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true};
	traced_run(&run, &options, (char *[]){(char *)program_path("vmm"), (char *)argument, NULL});
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 60 * MiB,
		     "the reservation is not memory");
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 4);
	cr_assert_eq(report_int(r, "devices/0/frees"), 4);
	cr_assert_str_eq(report_string(r, "devices/0/peak/api"), "cuMemCreate");
	json_t *vmm = report_kind(r, "devices/0", "vmm");
	cr_assert_eq(report_int(vmm, "peak_bytes"), 60 * MiB);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0, "the double release");
	traced_run_free(&run);
}

Test(preload, vmm_expandable_segments)
{
	check_vmm(NULL);
}

Test(preload, vmm_through_dlopen_and_dlsym)
{
	check_vmm("dlopen");
}

static void assert_pool(json_t *pool, uint64_t reserved, uint64_t reserved_peak, uint64_t used,
			uint64_t used_peak, bool destroyed)
{
	cr_assert_eq(report_int(pool, "reserved_bytes"), reserved);
	cr_assert_eq(report_int(pool, "reserved_peak_bytes"), reserved_peak);
	cr_assert_eq(report_int(pool, "used_bytes"), used);
	cr_assert_eq(report_int(pool, "used_peak_bytes"), used_peak);
	cr_assert_eq(json_is_true(json_object_get(pool, "destroyed")), destroyed);
}

Test(preload, pools_reserved_beside_used)
{
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true};
	traced_run(&run, &options, (char *[]){(char *)program_path("pools"), NULL});
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	json_t *pools =
		json_object_get(json_array_get(json_object_get(run.report, "devices"), 0), "pools");
	cr_assert_eq(json_array_size(pools), 2);
	/* The created pool, seen at its creation: its last reading, after the
	 * trim and before the destroy. */
	assert_pool(json_array_get(pools, 0), 2 * MiB, 6 * MiB, 2 * MiB, 6 * MiB, true);
	/* The default pool, seen when cudaDeviceSetMemPool replaced it. */
	assert_pool(json_array_get(pools, 1), 0, 6 * MiB, 0, 6 * MiB, false);
	cr_assert_eq(report_int(run.report, "devices/0/live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(run.report, "devices/0/allocations"), 3);
	traced_run_free(&run);
}
