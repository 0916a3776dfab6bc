/* The CUPTI source beside the hooks: the same program recorded by either,
 * or both, gives the same numbers; a profiler holding CUPTI leaves the
 * hooks recording; CUPTI's resource domain shows contexts and modules. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

static void run_with(struct traced_run *run, const char *program, const char *sources)
{
	char setting[64];
	snprintf(setting, sizeof(setting), "VRAMTRACE_SOURCES=%s", sources);
	const char *env[] = {setting, "VRAMSIM_DEVICES=2", NULL};
	trace_program(run, program, env);
	cr_assert_eq(run->status, 0, "%s under %s: %s %s", program, sources, run->out, run->err);
	cr_assert_not_null(run->report, "%s under %s wrote no report", program, sources);
}

static void copy_keys(json_t *into, json_t *from, const char *const *keys)
{
	for (; *keys; keys++) {
		json_t *value = json_object_get(from, *keys);
		if (value)
			json_object_set_new(into, *keys, json_deep_copy(value));
	}
}

/* What must not depend on the source: every count, byte figure and name;
 * not times, stack ids or the sampled device view. */
static json_t *owner_numbers(json_t *owner)
{
	static const char *const keys[] = {"ordinal",
					   "live_at_exit_bytes",
					   "live_at_exit_allocations",
					   "allocations",
					   "frees",
					   "failed_allocations",
					   "bytes_allocated",
					   "kinds",
					   "tags",
					   "pools",
					   "graph_memory",
					   NULL};
	static const char *const peak_keys[] = {"bytes", "api", "driver_api", NULL};
	json_t *numbers = json_object();
	copy_keys(numbers, owner, keys);
	json_t *peak = json_object();
	copy_keys(peak, json_object_get(owner, "peak"), peak_keys);
	json_object_set_new(numbers, "peak", peak);
	json_object_set_new(
		numbers, "failures",
		json_integer((json_int_t)json_array_size(json_object_get(owner, "failures"))));
	return numbers;
}

static json_t *report_numbers(json_t *report)
{
	static const char *const tracer_keys[] = {"events",    "deduplicated",   "unknown_frees",
						  "untracked", "failures_total", NULL};
	json_t *numbers = json_object(), *devices = json_array(), *tracer = json_object();
	size_t i;
	json_t *device;
	json_array_foreach (json_object_get(report, "devices"), i, device)
		json_array_append_new(devices, owner_numbers(device));
	json_object_set_new(numbers, "devices", devices);
	json_object_set_new(numbers, "host", owner_numbers(json_object_get(report, "host")));
	copy_keys(tracer, json_object_get(report, "tracer"), tracer_keys);
	json_object_set_new(numbers, "tracer", tracer);
	return numbers;
}

static void assert_sources(json_t *report, const char *first, const char *second)
{
	json_t *sources = report_at(report, "tracer/sources");
	cr_assert_eq(json_array_size(sources), second ? 2 : 1);
	cr_assert_str_eq(json_string_value(json_array_get(sources, 0)), first);
	if (second)
		cr_assert_str_eq(json_string_value(json_array_get(sources, 1)), second);
}

/* hooks, cupti and both record the program identically. */
static void check_same_numbers(const char *program)
{
	struct traced_run hooks, cupti, both;
	run_with(&hooks, program, "hooks");
	run_with(&cupti, program, "cupti");
	run_with(&both, program, "both");
	assert_sources(hooks.report, "hooks", NULL);
	assert_sources(cupti.report, "cupti", NULL);
	assert_sources(both.report, "hooks", "cupti");
	cr_assert(json_is_null(report_at(hooks.report, "tracer/cupti")));
	cr_assert_str_eq(report_string(cupti.report, "tracer/cupti"), "subscribed");
	cr_assert_null(strstr(cupti.err, "vramtrace: CUPTI"), "%s", cupti.err);
	json_t *expected = report_numbers(hooks.report);
	cr_assert_gt(report_int(hooks.report, "tracer/events"), 0, "%s recorded nothing", program);
	json_t *by_source[] = {report_numbers(cupti.report), report_numbers(both.report)};
	for (int i = 0; i < 2; i++) {
		char *want = json_dumps(expected, JSON_SORT_KEYS | JSON_COMPACT);
		char *got = json_dumps(by_source[i], JSON_SORT_KEYS | JSON_COMPACT);
		cr_assert_str_eq(got, want, "%s under %s differs", program, i ? "both" : "cupti");
		free(want);
		free(got);
		json_decref(by_source[i]);
	}
	json_decref(expected);
	traced_run_free(&hooks);
	traced_run_free(&cupti);
	traced_run_free(&both);
}

Test(sources, plain_device_memory_and_failures)
{
	check_same_numbers("sequence");
	check_same_numbers("oom");
	check_same_numbers("two_devices");
}

Test(sources, driver_api_and_host_memory)
{
	check_same_numbers("driver_api");
	check_same_numbers("runtime_surface");
}

/* Eight threads' 100,000 pairs each, every one seen by CUPTI alone (the
 * peak depends on how the threads interleave, so only counts compare). */
Test(sources, eight_threads_under_cupti)
{
	struct traced_run run;
	run_with(&run, "threads", "cupti");
	assert_sources(run.report, "cupti", NULL);
	cr_assert_eq(report_int(run.report, "devices/0/allocations"), 800008);
	cr_assert_eq(report_int(run.report, "devices/0/frees"), 800000);
	cr_assert_eq(report_int(run.report, "devices/0/live_at_exit_bytes"), 36 * MiB);
	cr_assert_eq(report_int(run.report, "tracer/events"), 1600008);
	cr_assert_eq(report_int(run.report, "tracer/unknown_frees"), 0);
	traced_run_free(&run);
}

Test(sources, vmm_and_multicast)
{
	check_same_numbers("vmm");
	check_same_numbers("multicast");
}

Test(sources, pools_graphs_arrays_and_external_memory)
{
	check_same_numbers("pools");
	check_same_numbers("pool_devices");
	check_same_numbers("graphs");
	check_same_numbers("capture");
	check_same_numbers("arrays");
	check_same_numbers("external");
}

Test(sources, second_subscriber_leaves_the_hooks_recording)
{
	struct traced_run run;
	run_with(&run, "cupti_holder", "cupti");
	cr_assert_str_eq(run.out, "holder saw 2 allocations\n");
	cr_assert_eq(count_of(run.err, "vramtrace: CUPTI has another subscriber: CUPTI for "
				       "cupti_holder; recording with the hooks instead of CUPTI\n"),
		     1, "%s", run.err);
	cr_assert_eq(count_of(run.err, "vramtrace: "), 1, "%s", run.err);
	assert_sources(run.report, "hooks", NULL);
	cr_assert_str_eq(report_string(run.report, "tracer/cupti"),
			 "CUPTI has another subscriber: CUPTI for cupti_holder");
	cr_assert(json_is_null(report_at(run.report, "resources")));
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 4 * MiB);
	cr_assert_eq(report_int(run.report, "devices/0/allocations"), 2);
	cr_assert_eq(report_int(run.report, "devices/0/frees"), 2);
	traced_run_free(&run);
}

static void assert_event(json_t *events, size_t i, const char *event, int device, int64_t bytes)
{
	json_t *entry = json_array_get(events, i);
	cr_assert_not_null(entry, "no event %zu", i);
	cr_assert_str_eq(report_string(entry, "event"), event, "event %zu", i);
	cr_assert_eq(report_int(entry, "device"), device, "event %zu", i);
	cr_assert_eq(report_int(entry, "bytes"), bytes, "event %zu", i);
}

Test(sources, contexts_and_modules_become_events)
{
	struct traced_run run;
	const char *env[] = {"VRAMTRACE_SOURCES=cupti", "VRAMSIM_DEVICES=2", "VRAMTRACE_SUMMARY=1",
			     NULL};
	trace_program(&run, "modules", env);
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	json_t *events = report_at(run.report, "resources/events");
	cr_assert_eq(json_array_size(events), 5, "%s", json_dumps(events, 0));
	assert_event(events, 0, "context_created", 0, 0);
	assert_event(events, 1, "module_loaded", 0, 4736);
	assert_event(events, 2, "module_unloading", 0, 4736);
	assert_event(events, 3, "context_created", 1, 0);
	assert_event(events, 4, "context_destroying", 1, 0);
	cr_assert_eq(report_int(run.report, "resources/dropped"), 0);
	cr_assert_not_null(
		strstr(run.err,
		       "vramtrace: CUPTI: 2 contexts created, 1 module loaded (4.62 KiB of "
		       "images)\n"),
		"%s", run.err);

	char path[512];
	snprintf(path, sizeof(path), "%s/report.json", run.dir);
	struct traced_run text;
	struct run_options plain = {0};
	traced_run(&text, &plain,
		   (char *[]){(char *)build_path("VT_TEST_TOOL"), "report", path, NULL});
	cr_assert_eq(text.status, 0, "%s", text.err);
	cr_assert_not_null(
		strstr(text.out,
		       "  CUPTI: 1 context created, 1 module loaded (4.62 KiB of images)\n"),
		"%s", text.out);
	traced_run_free(&text);
	traced_run_free(&run);
}

/* A directory holding the simulated driver, runtime and NVML, not CUPTI. */
static void link_without_cupti(char *dir, size_t size)
{
	snprintf(dir, size, "/tmp/vramtrace-no-cupti-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	static const char *const libraries[] = {"libcuda.so.1", "libcudart.so.13",
						"libnvidia-ml.so.1"};
	for (size_t i = 0; i < 3; i++) {
		char target[512], link[512];
		snprintf(target, sizeof(target), "%s/%s", build_path("VT_TEST_SIM_DIR"),
			 libraries[i]);
		snprintf(link, sizeof(link), "%s/%s", dir, libraries[i]);
		cr_assert_eq(symlink(target, link), 0);
	}
}

static void remove_links(const char *dir)
{
	static const char *const libraries[] = {"libcuda.so.1", "libcudart.so.13",
						"libnvidia-ml.so.1"};
	for (size_t i = 0; i < 3; i++) {
		char link[512];
		snprintf(link, sizeof(link), "%s/%s", dir, libraries[i]);
		unlink(link);
	}
	rmdir(dir);
}

/* Without the simulated libcupti the real one may be found (the toolkit's
 * directory is often on the loader's path); over the simulated driver it
 * cannot subscribe (999), and with none installed it cannot load: either
 * way one warning, and the hooks record. */
Test(sources, unusable_cupti_leaves_the_hooks_recording)
{
	char dir[64];
	link_without_cupti(dir, sizeof(dir));
	const char *env[] = {"VRAMTRACE_SOURCES=both", NULL};
	struct run_options options = {.preload = true, .library_path = dir, .env = env};
	struct traced_run run;
	traced_run(&run, &options, (char *[]){(char *)program_path("sequence"), NULL});
	remove_links(dir);
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	cr_assert_eq(count_of(run.err, "vramtrace: "), 1, "%s", run.err);
	cr_assert_eq(count_of(run.err, "; recording with the hooks instead of CUPTI\n"), 1, "%s",
		     run.err);
	assert_sources(run.report, "hooks", NULL);
	const char *why = report_string(run.report, "tracer/cupti");
	cr_assert(strcmp(why, "cannot load libcupti.so.13") == 0 ||
			  strcmp(why, "cuptiSubscribe failed with 999 (CUPTI_ERROR_UNKNOWN)") == 0,
		  "%s", why);
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 600 * MiB);
	traced_run_free(&run);
}

/* Two devices as multi-GPU programs use them (multi_gpu.cu): 16 MiB each
 * from cudaMalloc throughout; device 0 adds 32 MiB of graph memory (its
 * peak, 48 MiB); device 1 three 2 MiB handles mapped end to end and
 * unmapped by one call, then 64 MiB of graph memory (its peak, 80 MiB).
 * Every handle is freed by that one unmap, whichever source records it. */
Test(sources, multi_gpu_program_exact_per_device)
{
	if (access(program_path("multi_gpu"), X_OK) != 0)
		cr_skip_test("nvcc was not found at build time");
	struct traced_run run;
	run_with(&run, "multi_gpu", "hooks");
	json_t *r = run.report;
	cr_assert(strstr(run.out, "multi_gpu: ok"), "%s", run.out);
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 48 * MiB);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 2);
	cr_assert_eq(report_int(r, "devices/0/bytes_allocated"), 48 * MiB);
	cr_assert_eq(report_int(report_kind(r, "devices/0", "graph"), "peak_bytes"), 32 * MiB);
	cr_assert_eq(report_int(r, "devices/1/peak/bytes"), 80 * MiB);
	cr_assert_eq(report_int(r, "devices/1/allocations"), 5);
	cr_assert_eq(report_int(r, "devices/1/frees"), 5);
	cr_assert_eq(report_int(r, "devices/1/bytes_allocated"), 86 * MiB);
	cr_assert_eq(report_int(report_kind(r, "devices/1", "vmm"), "peak_bytes"), 6 * MiB);
	cr_assert_eq(report_int(report_kind(r, "devices/1", "vmm"), "live_at_exit_bytes"), 0);
	cr_assert_eq(report_int(report_kind(r, "devices/1", "graph"), "peak_bytes"), 64 * MiB);
	cr_assert_eq(report_int(r, "devices/1/graph_memory/used_peak_bytes"), 64 * MiB);
	for (int device = 0; device < 2; device++) {
		char path[64];
		snprintf(path, sizeof(path), "devices/%d/live_at_exit_bytes", device);
		cr_assert_eq(report_int(r, path), 0, "%s", path);
	}
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
	traced_run_free(&run);
	check_same_numbers("multi_gpu");
}
