/* The report tells the truth: what it shows, not only what it counts. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

static int64_t field(json_t *row, const char *key)
{
	json_t *value = json_object_get(row, key);
	cr_assert(json_is_integer(value), "no %s in a row", key);
	return json_integer_value(value);
}

/* The two ways a call is seen, for the truths checked through both. */
static const char *const sources[] = {"VRAMTRACE_SOURCES=hooks", "VRAMTRACE_SOURCES=cupti"};
#define SOURCE_COUNT (sizeof(sources) / sizeof(sources[0]))

Test(truth, the_timeline_of_a_sawtooth_shows_peaks_troughs_and_the_end)
{
	struct traced_run run;
	trace_program(&run, "sawtooth", NULL);
	json_t *rows = report_at(run.report, "devices/0/timeline/rows");
	int64_t peak = report_int(run.report, "devices/0/peak/bytes");
	cr_assert_eq(peak, 1280 * MiB);
	cr_assert_gt(json_array_size(rows), 2, "the teeth span several rows");
	int64_t highest = 0, lowest_after = INT64_MAX;
	bool past_first_tooth = false;
	size_t i;
	json_t *row;
	json_array_foreach (rows, i, row) {
		if (field(row, "max_bytes") > highest)
			highest = field(row, "max_bytes");
		if (past_first_tooth && field(row, "min_bytes") < lowest_after)
			lowest_after = field(row, "min_bytes");
		past_first_tooth = past_first_tooth || field(row, "max_bytes") == peak;
		cr_assert_eq(field(row, "live_bytes"), field(row, "max_bytes"));
		cr_assert_leq(field(row, "min_bytes"), field(row, "end_bytes"));
		cr_assert_leq(field(row, "end_bytes"), field(row, "max_bytes"));
	}
	cr_assert_eq(highest, peak, "the highest point is the peak, to the byte");
	cr_assert_eq(lowest_after, 256 * MiB, "the troughs show the base");
	json_t *last = json_array_get(rows, json_array_size(rows) - 1);
	cr_assert_eq(field(last, "end_bytes"), 768 * MiB, "the last point is live at exit");
	cr_assert_eq(report_int(run.report, "devices/0/live_at_exit_bytes"), 768 * MiB);
	/* The split by tag is taken at each row's highest point. */
	json_array_foreach (rows, i, row) {
		int64_t split = 0;
		const char *tag;
		json_t *bytes;
		json_object_foreach (json_object_get(row, "by_tag"), tag, bytes)
			split += json_integer_value(bytes);
		cr_assert_eq(split, field(row, "max_bytes"), "row %zu", i);
	}
	/* The trace draws the same: its max series reaches the peak, its min
	 * series the base, and it ends at live at exit. */
	char command[800];
	snprintf(command, sizeof(command), "%s report %s/report.json --format trace -o %s/t.json",
		 build_path("VT_TEST_TOOL"), run.dir, run.dir);
	cr_assert_eq(system(command), 0);
	snprintf(command, sizeof(command), "%s/t.json", run.dir);
	json_t *trace = json_load_file(command, 0, NULL);
	cr_assert(trace);
	int64_t trace_max = 0, trace_min_after = INT64_MAX, trace_last = -1;
	bool seen_peak = false;
	json_t *event;
	json_array_foreach (json_object_get(trace, "traceEvents"), i, event) {
		if (strcmp(json_string_value(json_object_get(event, "name")), "live bytes") != 0)
			continue;
		json_t *args = json_object_get(event, "args");
		int64_t max = field(args, "max"), min = field(args, "min");
		if (max > trace_max)
			trace_max = max;
		if (seen_peak && min < trace_min_after)
			trace_min_after = min;
		seen_peak = seen_peak || max == peak;
		trace_last = min == max ? min : -1;
	}
	cr_assert_eq(trace_max, peak);
	cr_assert_eq(trace_min_after, 256 * MiB);
	cr_assert_eq(trace_last, 768 * MiB);
	json_decref(trace);
	traced_run_free(&run);
}

/* A program whose only device memory is graph memory: the device is in the
 * report, its peak is the 64 MiB to the byte, and a budget below it fails. */
Test(truth, graph_memory_alone_makes_the_peak_and_fails_the_budget)
{
	struct traced_run run;
	trace_program(&run, "graph_only", NULL);
	cr_assert_eq(json_array_size(report_at(run.report, "devices")), 1);
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 64 * MiB);
	cr_assert_eq(report_int(run.report, "devices/0/live_at_exit_bytes"), 64 * MiB);
	cr_assert_str_eq(report_string(run.report, "devices/0/peak/api"), "cudaGraphLaunch");
	cr_assert_str_eq(report_string(run.report, "devices/0/peak/driver_api"), "cuGraphLaunch");
	cr_assert_eq(report_int(report_kind(run.report, "devices/0", "graph"), "at_peak_bytes"),
		     64 * MiB);
	char command[800];
	snprintf(command, sizeof(command),
		 "%s check %s/report.json --budget 32MiB > /dev/null 2>&1; echo $?",
		 build_path("VT_TEST_TOOL"), run.dir);
	FILE *out = popen(command, "r");
	int status = -1;
	cr_assert_eq(fscanf(out, "%d", &status), 1);
	pclose(out);
	cr_assert_eq(status, 1, "64 MiB of graph memory does not fit 32 MiB");
	snprintf(command, sizeof(command),
		 "%s check %s/report.json --budget 64MiB > /dev/null 2>&1",
		 build_path("VT_TEST_TOOL"), run.dir);
	cr_assert_eq(system(command), 0, "it fits 64 MiB exactly");
	traced_run_free(&run);
}

/* The device view is read at the peak, even one that stands for an
 * instant: the first free after it finds the memory still on the device. A
 * dump made mid-run carries the view too. */
Test(truth, the_device_view_is_read_at_the_peak)
{
	struct traced_run run;
	trace_program(&run, "transient", NULL);
	int64_t peak = 1124 * MiB + 3, used = 512 * MiB + 102 * MiB + 1024 * MiB;
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), peak);
	cr_assert_eq(run.reports, 2, "the exit report and the dump");
	for (unsigned i = 0; i < 2; i++) {
		json_t *view = report_at(run.all[i], "devices/0/device_view");
		cr_assert(json_is_object(view), "report %u has the device view", i);
		cr_assert_eq(report_int(view, "tracked_at_sample_bytes"), peak);
		cr_assert_eq(report_int(view, "used_at_tracked_peak_bytes"), used);
		cr_assert_eq(report_int(view, "unexplained_at_peak_bytes"), used - peak,
			     "the context and the rounding");
		cr_assert(json_is_true(report_at(view, "sampled_at_peak")));
		cr_assert_eq(json_array_size(report_at(run.all[i], "tracer/left_out")), 0);
	}
	traced_run_free(&run);
}

/* A peak ended by a call whose free is recorded once the driver took it
 * (the last unmap of a released cuMemCreate handle, a graph memory trim)
 * is read on the device before the memory goes back: the device view at
 * the peak is the context's 512 MiB and the peak's own bytes (rounded to
 * the 2 MiB granularity they already have), read at the peak itself. */
static void given_back(const char *mode, int64_t peak)
{
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true};
	traced_run(&run, &options,
		   (char *[]){(char *)program_path("given_back"), (char *)mode, NULL});
	cr_assert_eq(run.status, 0, "%s: %s", mode, run.err);
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), peak, "%s", mode);
	cr_assert_eq(report_int(run.report, "devices/0/live_at_exit_bytes"), 0, "%s", mode);
	json_t *view = report_at(run.report, "devices/0/device_view");
	cr_assert_eq(report_int(view, "tracked_at_sample_bytes"), peak, "%s", mode);
	cr_assert_eq(report_int(view, "used_at_tracked_peak_bytes"), 512 * MiB + peak, "%s", mode);
	cr_assert_eq(report_int(view, "unexplained_at_peak_bytes"), 512 * MiB,
		     "%s: the context alone, not the peak's memory already given back", mode);
	cr_assert(json_is_true(report_at(view, "sampled_at_peak")), "%s", mode);
	traced_run_free(&run);
}

Test(truth, the_device_view_is_read_before_an_unmap_or_a_trim_gives_a_peak_back)
{
	given_back("vmm", 10 * MiB);
	given_back("graph", 18 * MiB);
}

/* A primary context retained again is the same context: three retains make
 * one, and a retain after its last release makes a second (context_only.c,
 * primary), as CUPTI's resource domain sees them. */
Test(truth, a_primary_context_retained_again_is_one_context)
{
	for (size_t i = 0; i < SOURCE_COUNT; i++) {
		struct traced_run run;
		struct run_options options = {
			.preload = true,
			.simulate = true,
			.env = (const char *const[]){sources[i], NULL},
		};
		traced_run(&run, &options,
			   (char *[]){(char *)program_path("context_only"), "primary", NULL});
		cr_assert_eq(run.status, 0, "%s: %s", sources[i], run.err);
		cr_assert_eq(report_int(run.report, "devices/0/contexts"), 2, "%s", sources[i]);
		traced_run_free(&run);
	}
}

/* CUDA initialized, a context and a module, no allocation: a report all
 * the same, with the device, its context and what the device shows. */
Test(truth, a_process_that_only_made_a_context_has_a_report)
{
	struct traced_run run;
	struct run_options options = {0};
	traced_run(&run, &options,
		   (char *[]){(char *)build_path("VT_TEST_TOOL"), "run", "--simulate", "--force",
			      "--output", "report.json", "--", (char *)program_path("context_only"),
			      NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_null(strstr(run.err, "no process"), "%s", run.err);
	unlink("report.json"); /* written in the test's working directory */
	traced_run_free(&run);
	trace_program(&run, "context_only", NULL);
	cr_assert_eq(run.reports, 1);
	cr_assert_eq(report_int(run.report, "devices/0/ordinal"), 0);
	cr_assert_eq(report_int(run.report, "devices/0/contexts"), 1);
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 0);
	cr_assert_eq(report_int(run.report, "devices/0/device_view/used_at_tracked_peak_bytes"),
		     512 * MiB, "the context alone");
	cr_assert_str_eq(report_string(run.report, "devices/0/name"), "vramsim GPU 0");
	traced_run_free(&run);
}

/* The summary cannot be misread: allocation counts are over the run, and
 * two stacks that differ only inside one source line are shown once. */
Test(truth, the_summary_says_what_it_means)
{
	struct traced_run run;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL},
	};
	traced_run(&run, &options, (char *[]){(char *)build_path("VT_TEST_LLM_SERVING"), NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.err, "    device                      17.29 GiB  94.5%   own peak "
				  "17.29 GiB, 68 allocations over the run\n"),
		  "%s", run.err);
	const char *merged =
		strstr(run.err, "#1 13.04 GiB 71.3% [weights], 2 stacks at these lines\n"
				"vramtrace:         at load_weights (llm_serving.c:164)\n"
				"vramtrace:            inlined in serve (llm_serving.c:228)\n"
				"vramtrace:            inlined in main (llm_serving.c:");
	cr_assert(merged, "%s", run.err);
	const char *line = strstr(run.err, "at load_weights (llm_serving.c:164)");
	cr_assert(line && !strstr(line + 1, "at load_weights (llm_serving.c:164)"),
		  "shown once: %s", run.err);
	cr_assert(strstr(run.err, "1 context made on it"), "%s", run.err);
	cr_assert(strstr(run.err, "device view: peak used 18.81 GiB, unexplained at the peak "
				  "536.56 MiB (no allocation call shows it: contexts, module "
				  "images, other processes)"),
		  "%s", run.err);
	traced_run_free(&run);
}

/* C++ names are demangled whether or not the program loaded libstdc++. */
Test(truth, cxx_names_are_demangled_in_a_c_program)
{
	struct traced_run run;
	trace_program(&run, "mangled", NULL);
	json_t *frames = report_at(run.report, "frames");
	bool found = false, mangled = false;
	size_t i;
	json_t *frame;
	json_array_foreach (frames, i, frame) {
		const char *name = json_string_value(json_object_get(frame, "function"));
		found = found || (name && strcmp(name, "load_weights()") == 0);
		mangled = mangled || (name && strncmp(name, "_Z", 2) == 0);
	}
	cr_assert(found, "load_weights() among the frames");
	cr_assert_not(mangled, "no mangled name left");
	char command[600];
	snprintf(command, sizeof(command), "ldd %s | grep -q libstdc++", program_path("mangled"));
	cr_assert_neq(system(command), 0, "the program does not link libstdc++");
	traced_run_free(&run);
}

/* Checks every figure the program printed ("expect PATH VALUE", or
 * "expect_kind|expect_tag OWNER NAME FIELD VALUE") against the report;
 * returns how many. */
static unsigned check_expectations(const struct traced_run *run)
{
	unsigned checked = 0;
	char *saved, *text = strdup(run->out);
	cr_assert(text);
	for (char *line = strtok_r(text, "\n", &saved); line; line = strtok_r(NULL, "\n", &saved)) {
		char what[16], path[64], owner[32], name[32], field[32];
		long long want;
		if (sscanf(line, "expect %63s %lld", path, &want) == 2) {
			cr_assert_eq(report_int(run->report, path), want, "%s", line);
		} else if (sscanf(line, "%15s %31s %31s %31s %lld", what, owner, name, field,
				  &want) == 5) {
			bool kind = strcmp(what, "expect_kind") == 0;
			cr_assert(kind || strcmp(what, "expect_tag") == 0, "%s", line);
			json_t *entry = kind ? report_kind(run->report, owner, name)
					     : report_tag(run->report, owner, name);
			json_t *value = json_object_get(entry, field);
			cr_assert(json_is_integer(value), "%s: no such field", line);
			cr_assert_eq(json_integer_value(value), want, "%s", line);
		} else {
			continue;
		}
		checked++;
	}
	free(text);
	return checked;
}

/* The timeline of owner agrees with its figures: the highest point of any
 * row is the peak, the last row ends at what was live at exit, and each
 * row's split by tag adds up to its highest point. */
static void check_timeline(json_t *report, const char *owner)
{
	char path[64];
	snprintf(path, sizeof(path), "%s/timeline/rows", owner);
	json_t *rows = report_at(report, path), *row, *bytes;
	cr_assert_gt(json_array_size(rows), 0, "%s: no rows", owner);
	int64_t highest = 0;
	size_t i;
	const char *tag;
	json_array_foreach (rows, i, row) {
		int64_t split = 0;
		json_object_foreach (json_object_get(row, "by_tag"), tag, bytes)
			split += json_integer_value(bytes);
		cr_assert_eq(split, field(row, "max_bytes"), "%s row %zu", owner, i);
		cr_assert_leq(field(row, "min_bytes"), field(row, "end_bytes"));
		cr_assert_leq(field(row, "end_bytes"), field(row, "max_bytes"));
		if (field(row, "max_bytes") > highest)
			highest = field(row, "max_bytes");
	}
	snprintf(path, sizeof(path), "%s/peak/bytes", owner);
	cr_assert_eq(highest, report_int(report, path), "%s: the highest point is the peak", owner);
	snprintf(path, sizeof(path), "%s/live_at_exit_bytes", owner);
	cr_assert_eq(field(json_array_get(rows, json_array_size(rows) - 1), "end_bytes"),
		     report_int(report, path), "%s: the last row ends at exit", owner);
}

/* Random runs of every allocation call on two devices and the host, in
 * nested NVTX ranges: the report says to the byte and to the event what
 * the program itself counted, per device, kind and tag. */
Test(truth, random_runs_of_every_allocation_call_agree_with_the_program, .timeout = 120)
{
	const char *const seeds[] = {"1", "77", "20261201"};
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct traced_run run;
		char injection[600];
		snprintf(injection, sizeof(injection), "NVTX_INJECTION64_PATH=%s",
			 build_path("VT_TEST_LIBRARY"));
		struct run_options options = {
			.preload = true,
			.simulate = true,
			.env = (const char *const[]){"VRAMSIM_DEVICES=2", injection, NULL},
		};
		traced_run(&run, &options,
			   (char *[]){(char *)program_path("random_calls"), (char *)seeds[i],
				      "4000", NULL});
		cr_assert_eq(run.status, 0, "seed %s: %s", seeds[i], run.err);
		cr_assert_gt(check_expectations(&run), 40, "seed %s: too few figures", seeds[i]);
		check_timeline(run.report, "devices/0");
		check_timeline(run.report, "devices/1");
		check_timeline(run.report, "host");
		traced_run_free(&run);
	}
}

/* The same through the Python helper: nested tags, re-tagging live and
 * freed pointers, and windows (checked by the script as it runs). */
Test(truth, random_runs_of_the_python_helper_agree_with_the_script, .timeout = 120)
{
	char script[600], python_path[600];
	snprintf(script, sizeof(script), "%s", build_path("VT_TEST_PYTHON_SCRIPT"));
	char *slash = strrchr(script, '/');
	snprintf(slash + 1, sizeof(script) - (size_t)(slash + 1 - script), "random_tags.py");
	snprintf(python_path, sizeof(python_path), "PYTHONPATH=%s",
		 build_path("VT_TEST_PYTHON_DIR"));
	const char *const seeds[] = {"1", "2026"};
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct traced_run run;
		struct run_options options = {
			.preload = true,
			.simulate = true,
			.env = (const char *const[]){python_path, NULL},
		};
		traced_run(&run, &options,
			   (char *[]){(char *)build_path("VT_TEST_PYTHON"), script,
				      (char *)seeds[i], "3000", NULL});
		cr_assert_eq(run.status, 0, "seed %s: %s", seeds[i], run.err);
		cr_assert_gt(check_expectations(&run), 20, "seed %s: too few figures", seeds[i]);
		traced_run_free(&run);
	}
}

/* cudaDeviceReset, cuCtxDestroy and the last cuDevicePrimaryCtxRelease
 * destroy what was allocated in the context; stream-ordered memory and
 * physical handles outlive it (context_end.c). */
Test(truth, a_context_s_end_frees_what_was_made_in_it)
{
	for (size_t i = 0; i < SOURCE_COUNT; i++) {
		struct traced_run run;
		struct run_options options = {
			.preload = true,
			.simulate = true,
			.env = (const char *const[]){"VRAMSIM_DEVICES=2", sources[i], NULL},
		};
		traced_run(&run, &options, (char *[]){(char *)program_path("context_end"), NULL});
		cr_assert_eq(run.status, 0, "%s: %s", sources[i], run.err);
		json_t *r = run.report;
		cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 122 * MiB + 256 * 1024, "%s",
			     sources[i]);
		cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 22 * MiB);
		cr_assert_eq(report_int(r, "devices/0/live_at_exit_allocations"), 3);
		cr_assert_eq(report_int(r, "devices/0/frees"), 4,
			     "device, pitched, managed, array");
		cr_assert_eq(field(report_kind(r, "devices/0", "array"), "frees"), 1);
		cr_assert_eq(field(report_kind(r, "devices/0", "async"), "live_at_exit_bytes"),
			     16 * MiB);
		cr_assert_eq(field(report_kind(r, "devices/0", "vmm"), "live_at_exit_bytes"),
			     2 * MiB);
		cr_assert_eq(report_int(r, "devices/1/live_at_exit_bytes"), 0, "%s", sources[i]);
		cr_assert_eq(report_int(r, "devices/1/frees"), 3);
		cr_assert_eq(report_int(r, "host/live_at_exit_bytes"), 0);
		cr_assert_eq(report_int(r, "host/frees"), 1);
		cr_assert_eq(report_int(r, "tracer/unknown_frees"), 1, "the free after the reset");
		traced_run_free(&run);
	}
}

/* The driver's older ABIs end contexts too: cuDevicePrimaryCtxRelease and
 * cuDevicePrimaryCtxReset of CUDA 7.0, cuCtxDestroy of 2.0, called by name
 * or handed out by cuGetProcAddress for an older version, free what was
 * made in the context; contexts made by cuCtxCreate_v2 and _v3 are counted
 * (older_abis.c). */
Test(truth, a_context_s_end_through_an_older_abi_frees_what_was_made_in_it)
{
	for (size_t i = 0; i < SOURCE_COUNT; i++) {
		struct traced_run run;
		struct run_options options = {
			.preload = true,
			.simulate = true,
			.env = (const char *const[]){sources[i], NULL},
		};
		traced_run(&run, &options, (char *[]){(char *)program_path("older_abis"), NULL});
		cr_assert_eq(run.status, 0, "%s: %s", sources[i], run.err);
		json_t *r = run.report;
		cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 8 * MiB, "%s", sources[i]);
		cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 8 * MiB, "%s",
			     sources[i]);
		cr_assert_eq(report_int(r, "devices/0/live_at_exit_allocations"), 1);
		cr_assert_eq(report_int(r, "devices/0/allocations"), 4);
		cr_assert_eq(report_int(r, "devices/0/frees"), 3, "%s", sources[i]);
		cr_assert_eq(report_int(r, "devices/0/contexts"), 4, "%s", sources[i]);
		cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
		traced_run_free(&run);
	}
}

/* A capture begun by CUDA 10.0's cuStreamBeginCapture makes a graph of the
 * stream-ordered allocation in it, which allocates nothing until launched;
 * pages registered by CUDA 4.0's cuMemHostRegister are shown as the newer
 * ABI's are (older_abis.c, capture). */
Test(truth, a_capture_or_a_registration_through_an_older_abi_is_seen)
{
	for (size_t i = 0; i < SOURCE_COUNT; i++) {
		struct traced_run run;
		struct run_options options = {
			.preload = true,
			.simulate = true,
			.env = (const char *const[]){sources[i], NULL},
		};
		traced_run(&run, &options,
			   (char *[]){(char *)program_path("older_abis"), "capture", NULL});
		cr_assert_eq(run.status, 0, "%s: %s", sources[i], run.err);
		json_t *r = run.report;
		cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 1 * MiB, "%s", sources[i]);
		cr_assert_eq(report_int(r, "devices/0/allocations"), 1, "%s", sources[i]);
		cr_assert_eq(report_int(r, "devices/0/bytes_allocated"), 1 * MiB);
		cr_assert_eq(report_int(r, "devices/0/frees"), 0);
		json_t *registered = report_kind(r, "host", "host_registered");
		cr_assert_eq(report_int(registered, "live_at_exit_bytes"), 64 * 1024, "%s",
			     sources[i]);
		cr_assert_eq(report_int(registered, "allocations"), 1);
		traced_run_free(&run);
	}
}

/* A free CUDA refuses frees nothing: an array given to cudaFree, device
 * memory to cudaFreeArray, registered pages to cudaFreeHost, the primary
 * context to cuCtxDestroy. Every call fails as it does without vramtrace,
 * and all of it is live at exit. */
Test(truth, a_free_of_another_family_s_memory_leaves_it_live)
{
	struct both runs;
	run_both(&runs, "wrong_frees", NULL, NULL, NULL);
	same_behaviour(&runs);
	cr_assert_eq(runs.with.status, 0, "%s", runs.with.err);
	json_t *report = runs.with.report;
	cr_assert_eq(report_int(report, "devices/0/live_at_exit_bytes"), 13 * MiB);
	cr_assert_eq(report_int(report, "devices/0/live_at_exit_allocations"), 3);
	cr_assert_eq(report_int(report, "devices/0/frees"), 0);
	cr_assert_eq(report_int(report_kind(report, "devices/0", "array"), "live_at_exit_bytes"),
		     1 * MiB);
	cr_assert_eq(report_int(report_kind(report, "devices/0", "device"), "live_at_exit_bytes"),
		     5 * MiB);
	cr_assert_eq(report_int(report, "host/live_at_exit_bytes"), 3 * MiB);
	cr_assert_eq(
		report_int(report_kind(report, "host", "host_registered"), "live_at_exit_bytes"),
		8 * MiB);
	cr_assert_eq(report_int(report, "tracer/unknown_frees"), 7);
	/* The pages left registered are the program's own: live, shown, but
	 * no leak, so the leaks add up to what is live at exit. */
	const char *owners[] = {"devices/0", "host"};
	for (size_t i = 0; i < 2; i++) {
		char path[64];
		snprintf(path, sizeof(path), "%s/leaks", owners[i]);
		int64_t bytes = 0, count = 0;
		size_t index;
		json_t *leak;
		json_array_foreach (report_at(report, path), index, leak) {
			bytes += field(leak, "bytes");
			count += field(leak, "count");
		}
		snprintf(path, sizeof(path), "%s/live_at_exit_bytes", owners[i]);
		cr_assert_eq(bytes, report_int(report, path), "%s's leaks", owners[i]);
		snprintf(path, sizeof(path), "%s/live_at_exit_allocations", owners[i]);
		cr_assert_eq(count, report_int(report, path), "%s's leaks", owners[i]);
	}
	free_both(&runs);
}
