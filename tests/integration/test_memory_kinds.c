/* Every kind of memory counted exactly, each number asserted: device,
 * managed, stream-ordered and pinned memory, two devices, failures (beyond
 * the capacity, and sizes no GPU has), graph memory (launched, uploaded,
 * captured), pools (on their device, reserved beside used), VMM, multicast
 * objects, arrays at the driver's size, and external memory and IPC and
 * pool imports shown, never owned. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)
#define GiB (1024ll * MiB)

static double number_at(json_t *report, const char *path)
{
	json_t *node = report_at(report, path);
	cr_assert(json_is_number(node), "%s is not a number", path);
	return json_number_value(node);
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

static void assert_pool(json_t *pool, uint64_t reserved, uint64_t reserved_peak, uint64_t used,
			uint64_t used_peak, bool destroyed)
{
	cr_assert_eq(report_int(pool, "reserved_bytes"), reserved);
	cr_assert_eq(report_int(pool, "reserved_peak_bytes"), reserved_peak);
	cr_assert_eq(report_int(pool, "used_bytes"), used);
	cr_assert_eq(report_int(pool, "used_peak_bytes"), used_peak);
	cr_assert_eq(json_is_true(json_object_get(pool, "destroyed")), destroyed);
}

Test(memory_kinds, plain_calls_give_the_exact_peak_and_live_at_exit)
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

Test(memory_kinds, device_managed_async_and_pinned_memory_are_counted_apart)
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

Test(memory_kinds, each_of_two_devices_has_its_own_peak_and_live_bytes)
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

Test(memory_kinds, an_allocation_beyond_capacity_is_a_recorded_failure)
{
	struct traced_run run;
	trace_program(&run, "oom", (const char *const[]){"VRAMSIM_CAPACITY=16GiB", NULL});
	json_t *r = run.report;
	cr_assert(strstr(run.out, "oom: rc=2 out of memory huge=0x1"), "%s", run.out);
	cr_assert_eq(report_int(r, "devices/0/failed_allocations"), 1);
	cr_assert_eq(report_int(r, "devices/0/failures/0/bytes"), 100 * GiB);
	cr_assert_eq(report_int(r, "devices/0/failures/0/error"), 2);
	/* The program called the runtime: the name is the one it saw. */
	cr_assert_str_eq(report_string(r, "devices/0/failures/0/error_name"),
			 "cudaErrorMemoryAllocation");
	cr_assert_str_eq(report_string(r, "devices/0/failures/0/api"), "cudaMalloc");
	cr_assert_eq(report_int(r, "devices/0/failures/0/live_bytes"), 1 * GiB);
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 1 * GiB);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 1 * GiB);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 1);
	cr_assert_eq(report_int(r, "devices/0/capacity_bytes"), 16 * GiB);
	traced_run_free(&run);
}

/* SIZE_MAX, (size_t)-4, 2^62 and 81 GiB through all 20 allocation entry
 * points: the simulated device refuses each with out of memory, as a real
 * one does (it granted 14 of them), with vramtrace as without, and the
 * report records 20 failures of the exact sizes asked and no byte
 * allocated. */
Test(memory_kinds, sizes_no_gpu_has_are_refused_and_recorded_exactly)
{
	struct traced_run run;
	struct run_options bare = {.simulate = true};
	char *argv[] = {(char *)program_path("huge_sizes"), NULL};
	traced_run(&run, &bare, argv);
	cr_assert_eq(run.status, 0, "%s", run.out);
	const char *line = "huge_sizes: 20 refused, 0 wrong";
	cr_assert(strstr(run.out, line), "%s", run.out);
	traced_run_free(&run);

	/* Not named report*: the harness would read it as a plain report. */
	struct run_options traced = {.preload = true, .simulate = true, .output_name = "huge.json"};
	traced_run(&run, &traced, argv);
	cr_assert_eq(run.status, 0, "%s", run.out);
	cr_assert(strstr(run.out, line), "%s", run.out);
	char path[512];
	snprintf(path, sizeof(path), "%s/huge.json", run.dir);
	FILE *file = fopen(path, "r");
	cr_assert(file, "no report: %s", run.err);
	static char text[1 << 20];
	size_t length = fread(text, 1, sizeof(text) - 1, file);
	fclose(file);
	text[length] = '\0';
	cr_assert_eq(count_of(text, "\"bytes\": 18446744073709551615"), 12);
	cr_assert_eq(count_of(text, "\"bytes\": 18446744073709551612"), 4);
	cr_assert_eq(count_of(text, "\"bytes\": 4611686018427387904"), 3);
	cr_assert_eq(count_of(text, "\"bytes\": 86973087744"), 1);
	json_error_t error;
	json_t *report = json_loads(text, JSON_DECODE_INT_AS_REAL, &error);
	cr_assert(report, "%s", error.text);
	cr_assert_eq(number_at(report, "devices/0/failed_allocations"), 16);
	cr_assert_eq(number_at(report, "host/failed_allocations"), 4);
	cr_assert_eq(number_at(report, "tracer/failures_total"), 20);
	cr_assert_eq(number_at(report, "tracer/events"), 20);
	const char *owners[] = {"devices/0", "host"};
	for (int i = 0; i < 2; i++) {
		char field[64];
		const char *fields[] = {"allocations", "bytes_allocated", "live_at_exit_bytes",
					"peak/bytes"};
		for (int f = 0; f < 4; f++) {
			snprintf(field, sizeof(field), "%s/%s", owners[i], fields[f]);
			cr_assert_eq(number_at(report, field), 0, "%s", field);
		}
	}
	json_decref(report);
	traced_run_free(&run);
}

/* Graph memory is the process's device memory: the 6 MiB the driver
 * reserves for the graphs counts as the kind graph beside the plain 1 MiB,
 * one reservation that grows and is trimmed away (graphs.c). */
Test(memory_kinds, graph_memory_counts_in_the_device_peak)
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
 * there, by cudaGraphUpload (cuGraphUpload beneath), and the launch after it adds nothing
 * (graph_upload.c). */
Test(memory_kinds, graph_upload_reserves_before_the_launch)
{
	struct traced_run run;
	trace_program(&run, "graph_upload", NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 8 * MiB);
	cr_assert_str_eq(report_string(r, "devices/0/peak/driver_api"), "cuGraphUpload");
	cr_assert_str_eq(report_string(r, "devices/0/peak/api"), "cudaGraphUpload",
			 "the runtime call the program made");
	json_t *graph = report_kind(r, "devices/0", "graph");
	cr_assert_eq(report_int(graph, "allocations"), 1, "one reservation, made at the upload");
	cr_assert_eq(report_int(r, "devices/0/graph_memory/reserved_peak_bytes"), 8 * MiB);
	cr_assert_eq(report_int(r, "devices/0/graph_memory/used_peak_bytes"), 8 * MiB);
	traced_run_free(&run);
}

/* cudaMallocAsync captured into a graph is an allocation node, not an
 * allocation: it counts as the graph memory its launches take (capture.c). */
Test(memory_kinds, captured_stream_ordered_memory_is_graph_memory)
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

/* Memory from a pool is on the pool's device, not the current one
 * (pool_devices.c). */
Test(memory_kinds, pool_allocations_land_on_the_pools_device)
{
	struct traced_run run;
	const char *env[] = {"VRAMSIM_DEVICES=2", NULL};
	trace_program(&run, "pool_devices", env);
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	cr_assert_str_eq(run.out, "device 1 gave the pool 4 MiB\n");
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), MiB);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 1);
	cr_assert_eq(report_int(r, "devices/0/failed_allocations"), 0);
	cr_assert_eq(json_array_size(report_at(r, "devices/0/pools")), 0);
	cr_assert_eq(report_int(r, "devices/1/ordinal"), 1);
	/* A device's default pool first seen at an allocation, and a stream
	 * of device 1, allocate on device 1 whichever device is current. */
	cr_assert_eq(report_int(r, "devices/1/peak/bytes"), 10 * MiB);
	cr_assert_eq(report_int(r, "devices/1/allocations"), 3);
	cr_assert_eq(report_int(r, "devices/1/frees"), 3);
	cr_assert_eq(report_int(r, "devices/1/live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(r, "devices/1/failed_allocations"), 1);
	cr_assert_eq(report_int(r, "devices/1/failures/0/bytes"), 1ll << 40);
	cr_assert_str_eq(report_string(r, "devices/1/failures/0/kind"), "async");
	cr_assert_eq(report_int(r, "devices/1/failures/0/live_bytes"), 10 * MiB);
	cr_assert_eq(json_array_size(report_at(r, "devices/1/pools")), 2);
	cr_assert_eq(report_int(r, "devices/1/pools/0/reserved_peak_bytes"), 4 * MiB);
	cr_assert_eq(report_int(r, "devices/1/pools/1/used_peak_bytes"), 10 * MiB);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
	traced_run_free(&run);
}

Test(memory_kinds, pools_show_reserved_beside_used)
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
	/* The default pool, seen when cudaDeviceSetMemPool replaced it: its
	 * allocation freed, but no synchronize since, so it still holds its
	 * 6 MiB (a pool returns memory above its release threshold only at
	 * a stream, event or context synchronize). */
	assert_pool(json_array_get(pools, 1), 6 * MiB, 6 * MiB, 0, 6 * MiB, false);
	cr_assert_eq(report_int(run.report, "devices/0/live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(run.report, "devices/0/allocations"), 3);
	traced_run_free(&run);
}

Test(memory_kinds, vmm_counts_the_physical_memory_not_the_reservation)
{
	check_vmm(NULL);
}

Test(memory_kinds, vmm_through_dlopen_and_dlsym_counts_the_same)
{
	check_vmm("dlopen");
}

Test(memory_kinds, multicast_objects_are_shown_not_counted_again)
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

/* Each array at its elements' bytes (a real driver gives no size for an
 * array that is not deferred-mapping); a sparse or deferred-mapping one,
 * which holds none, not at all. The arithmetic is in arrays.c: 9600000 +
 * 50000 + 344064 + 240000. */
Test(memory_kinds, arrays_count_their_elements)
{
	struct traced_run run;
	trace_program(&run, "arrays", NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 10234064);
	cr_assert_str_eq(report_string(r, "devices/0/peak/api"), "cuArrayCreate_v2");
	cr_assert_eq(report_int(r, "devices/0/allocations"), 4);
	cr_assert_eq(report_int(r, "devices/0/frees"), 4);
	cr_assert_eq(report_int(r, "devices/0/failed_allocations"), 0);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 0);
	json_t *arrays = report_kind(r, "devices/0", "array");
	cr_assert_eq(report_int(arrays, "peak_bytes"), 10234064);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
	traced_run_free(&run);
}

/* Cubemaps keep their six faces at every mipmap level, the normalized
 * formats count the bytes of their channels and the block-compressed ones
 * their whole 4 x 4 blocks: 129024 + 3840 + 20000 + 4000 + 2688 + 1024,
 * the arithmetic in array_shapes.c. */
Test(memory_kinds, array_shapes_count_their_elements)
{
	struct traced_run run;
	trace_program(&run, "array_shapes", NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 160576);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 6);
	cr_assert_eq(report_int(r, "devices/0/frees"), 6);
	cr_assert_eq(report_int(r, "devices/0/failed_allocations"), 1);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 0);
	json_t *arrays = report_kind(r, "devices/0", "array");
	cr_assert_eq(report_int(arrays, "bytes_allocated"), 160576);
	traced_run_free(&run);
}

/* A mapped buffer of external memory is shown, never owned (external.c). */
Test(memory_kinds, external_memory_is_shown_not_owned)
{
	struct traced_run run;
	trace_program(&run, "external", NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), MiB);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 1);
	json_t *external = report_kind(r, "devices/0", "external");
	/* The half2 256 x 256 array's 3 levels, 4 bytes an element:
	 * 4 x (256 x 256 + 128 x 128 + 64 x 64) = 344064. */
	cr_assert_eq(report_int(external, "bytes_allocated"), 4 * MiB + 344064);
	cr_assert_eq(report_int(external, "allocations"), 2);
	cr_assert_eq(report_int(external, "live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
	traced_run_free(&run);
}

/* The importer's refused cudaFree of the import is its one unknown free. */
Test(memory_kinds, ipc_import_is_shown_not_owned)
{
	check_import("ipc", "ipc_import", 1);
}

Test(memory_kinds, pool_import_is_shown_not_owned)
{
	check_import("pool_ipc", "pool_import", 0);
}

/* The exit summary printed every failure the report kept (64 in all), and
 * the text report as many whatever --top said, neither saying that the run
 * had more: 100,000 failures showed as 64 lines and nothing else. Here 16
 * on the device and 4 of pinned host memory. */
Test(memory_kinds, failures_past_those_listed_are_counted)
{
	struct traced_run run;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL},
		.output_name = "huge.json", /* its sizes are past what the harness parses */
	};
	traced_run(&run, &options, (char *[]){(char *)program_path("huge_sizes"), NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.err, "vramtrace:   failed allocations: 16\n"), "%s", run.err);
	cr_assert_eq(count_of(run.err, " requested by "), 5 + 4, "%s", run.err);
	cr_assert(strstr(run.err, "vramtrace:     and 11 more failed allocations, not listed\n"),
		  "%s", run.err);
	char path[512];
	snprintf(path, sizeof(path), "%s/huge.json", run.dir);
	struct traced_run text;
	run_tool(&text, (char *[]){"report", path, "--top", "3", NULL}, NULL);
	cr_assert_eq(text.status, 0, "%s", text.err);
	cr_assert_eq(count_of(text.out, " requested by "), 3 + 3, "%s", text.out);
	cr_assert(strstr(text.out, "\n    and 13 more failed allocations, not listed\n"), "%s",
		  text.out);
	/* The host section, with no allocation made, was left out with its
	 * failures. */
	cr_assert(strstr(text.out, "\nhost (pinned memory)\n"), "%s", text.out);
	cr_assert(strstr(text.out, "\n    and 1 more failed allocation, not listed\n"), "%s",
		  text.out);
	traced_run_free(&text);
	run_tool(&text, (char *[]){"report", path, NULL}, NULL);
	cr_assert_eq(count_of(text.out, " requested by "), 16 + 4, "%s", text.out);
	cr_assert_null(strstr(text.out, "more failed"), "%s", text.out);
	traced_run_free(&text);
	traced_run_free(&run);
}
