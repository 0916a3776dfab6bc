/* Who held the memory: tags from the API and NVTX, module rules, stacks
 * symbolized to known lines, the OOM snapshot and the leak table. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)
#define GiB (1024ll * MiB)

static int64_t tag_number(json_t *report, const char *tag, const char *field)
{
	return report_int(report_tag(report, "devices/0", tag), field);
}

Test(attribution, explicit_tags_nest_per_thread_and_retag)
{
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true};
	traced_run(&run, &options, (char *[]){(char *)program_path("tags"), NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 30 * MiB);
	static const struct {
		const char *tag;
		int64_t mib;
	} expected[] = {{"weights", 10}, {"kv_cache", 4},    {"worker", 4},  {"odd", 4},
			{"even", 4},     {"activations", 3}, {"untagged", 1}};
	int64_t sum = 0;
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		cr_assert_eq(tag_number(r, expected[i].tag, "at_peak_bytes"), expected[i].mib * MiB,
			     "%s", expected[i].tag);
		sum += expected[i].mib * MiB;
	}
	cr_assert_eq(sum, 30 * MiB, "the tags add up to the peak");
	cr_assert_eq(tag_number(r, "untagged", "peak_bytes"), 3 * MiB, "before re-tagging");
	cr_assert_eq(tag_number(r, "activations", "allocations"), 0, "re-tagged, not allocated");
	cr_assert(strstr(run.out, "retagged=0 dumped=0 pop_empty=-1"), "%s", run.out);
	traced_run_free(&run);
}

static void run_nvtx(struct traced_run *run, const char *mode)
{
	char injection[600], nvtx[64];
	snprintf(injection, sizeof(injection), "NVTX_INJECTION64_PATH=%s",
		 build_path("VT_TEST_LIBRARY"));
	snprintf(nvtx, sizeof(nvtx), "VRAMTRACE_NVTX=%s", mode);
	const char *env[] = {injection, nvtx, NULL};
	struct run_options options = {.preload = true, .simulate = true, .env = env};
	traced_run(run, &options, (char *[]){(char *)program_path("nvtx_ranges"), NULL});
	cr_assert_eq(run->status, 0, "%s", run->err);
	cr_assert(run->report, "%s", run->err);
}

Test(attribution, nvtx_ranges_of_every_domain_tag_by_the_innermost)
{
	struct traced_run run;
	run_nvtx(&run, "innermost");
	json_t *r = run.report;
	cr_assert_eq(tag_number(r, "model", "bytes_allocated"), 1 * MiB);
	cr_assert_eq(tag_number(r, "attention", "bytes_allocated"), 2 * MiB);
	cr_assert_eq(tag_number(r,
				"gr\xc3\xbc\xc3\x9f"
				"e",
				"bytes_allocated"),
		     3 * MiB);
	cr_assert_eq(tag_number(r, "untagged", "bytes_allocated"), 4 * MiB);
	cr_assert_eq(tag_number(r, "prefill", "bytes_allocated"), 5 * MiB);
	cr_assert_eq(tag_number(r, "decode", "bytes_allocated"), 6 * MiB);
	cr_assert(strstr(run.out, "first level 0"), "%s", run.out);
	traced_run_free(&run);
}

Test(attribution, nvtx_ranges_tag_by_their_full_path_when_asked)
{
	struct traced_run run;
	run_nvtx(&run, "path");
	json_t *r = run.report;
	cr_assert_eq(tag_number(r, "model", "bytes_allocated"), 1 * MiB);
	cr_assert_eq(tag_number(r, "model/attention", "bytes_allocated"), 2 * MiB);
	cr_assert_eq(tag_number(r,
				"model/gr\xc3\xbc\xc3\x9f"
				"e",
				"bytes_allocated"),
		     3 * MiB);
	traced_run_free(&run);
}

Test(attribution, nvtx_without_injection_tags_nothing)
{
	struct traced_run run;
	trace_program(&run, "nvtx_ranges", NULL);
	cr_assert_eq(tag_number(run.report, "untagged", "bytes_allocated"), 21 * MiB);
	traced_run_free(&run);
}

Test(attribution, module_rule_names_the_owner)
{
	struct traced_run run;
	trace_program(&run, "module_rule", NULL);
	cr_assert_eq(tag_number(run.report, "nccl", "at_peak_bytes"), 8 * MiB);
	cr_assert_eq(tag_number(run.report, "untagged", "at_peak_bytes"), 2 * MiB);
	traced_run_free(&run);
}

Test(attribution, user_rules_come_first)
{
	struct traced_run run;
	trace_program(&run, "module_rule",
		      (const char *const[]){"VRAMTRACE_RULES=libncclstub=comms", NULL});
	cr_assert_eq(tag_number(run.report, "comms", "at_peak_bytes"), 8 * MiB);
	traced_run_free(&run);
}

/* The frames of stack id in the report's stack_frames, each index into the
 * report's frame table replaced by the frame it names. */
static json_t *frames_of(json_t *report, int64_t id)
{
	json_t *all = report_at(report, "stack_frames"), *table = report_at(report, "frames");
	size_t i, f;
	json_t *item, *index;
	json_array_foreach (all, i, item) {
		if (json_integer_value(json_object_get(item, "id")) != id)
			continue;
		json_t *frames = json_array();
		json_array_foreach (json_object_get(item, "frames"), f, index) {
			cr_assert(json_is_integer(index), "frames are indices into the table");
			json_t *frame = json_array_get(table, (size_t)json_integer_value(index));
			cr_assert(frame, "index %lld is in the table", json_integer_value(index));
			json_array_append(frames, frame);
		}
		json_object_set_new(item, "resolved", frames);
		return frames;
	}
	cr_assert_fail("no frames for stack %lld", (long long)id);
	return NULL;
}

/* Whether frames hold function at file:line. */
static bool has_frame(json_t *frames, const char *function, const char *file, int line)
{
	size_t i;
	json_t *frame;
	json_array_foreach (frames, i, frame) {
		const char *name = json_string_value(json_object_get(frame, "function"));
		const char *path = json_string_value(json_object_get(frame, "file"));
		if (name && path && strcmp(name, function) == 0 && strstr(path, file) &&
		    json_integer_value(json_object_get(frame, "line")) == line)
			return true;
	}
	return false;
}

Test(attribution, stacks_symbolized_to_function_file_and_line)
{
	struct traced_run run;
	trace_program(&run, "stacks", NULL);
	json_t *r = run.report;
	int weights_line = atoi(strstr(run.out, "weights_line=") + 13);
	int cache_line = atoi(strstr(run.out, "cache_line=") + 11);
	int call_line = atoi(strstr(run.out, "call_line=") + 10);
	cr_assert_eq(json_array_size(report_at(r, "devices/0/stacks")), 2);
	json_t *weights = report_at(r, "devices/0/stacks/0");
	json_t *cache = report_at(r, "devices/0/stacks/1");
	cr_assert_eq(report_int(weights, "at_peak_bytes"), 64 * MiB);
	cr_assert_eq(report_int(cache, "at_peak_bytes"), 48 * MiB);
	cr_assert_eq(report_int(cache, "allocations"), 3, "three calls, one stack");
	json_t *weights_frames = frames_of(r, report_int(weights, "id"));
	json_t *cache_frames = frames_of(r, report_int(cache, "id"));
	cr_assert(has_frame(weights_frames, "allocate_weights", "stacks.c", weights_line));
	cr_assert(has_frame(cache_frames, "allocate_cache", "stacks.c", cache_line));
	cr_assert(has_frame(cache_frames, "main", "stacks.c", call_line));
	size_t i;
	json_t *frame;
	json_array_foreach (weights_frames, i, frame) {
		const char *module = json_string_value(json_object_get(frame, "module"));
		cr_assert(!module || !strstr(module, "libvramtrace"), "vramtrace's own frame");
	}
	cr_assert_eq(report_int(r, "tracer/distinct_stacks"), 2);
	traced_run_free(&run);
}

/* Each stack keeps exactly the frames asked for, all the program's, though
 * the second path carries more of vramtrace's own frames than the first. */
Test(attribution, deep_stacks_keep_their_depth)
{
	struct traced_run run;
	trace_program(&run, "deep_stacks", (const char *const[]){"VRAMTRACE_STACK_DEPTH=16", NULL});
	json_t *stacks = report_at(run.report, "devices/0/stacks");
	cr_assert_eq(json_array_size(stacks), 2);
	size_t s, f;
	json_t *stack, *frame;
	json_array_foreach (stacks, s, stack) {
		json_t *frames = frames_of(run.report, report_int(stack, "id"));
		size_t calls = 0; /* inlined functions are frames of their own, not calls */
		json_array_foreach (frames, f, frame)
			calls += !json_is_true(json_object_get(frame, "inlined"));
		cr_assert_eq(calls, 16, "stack %zu has %zu frames", s, calls);
		unsigned descend_frames = 0;
		json_array_foreach (frames, f, frame) {
			const char *module = json_string_value(json_object_get(frame, "module"));
			const char *function =
				json_string_value(json_object_get(frame, "function"));
			cr_assert(!module || !strstr(module, "libvramtrace"),
				  "vramtrace's own frame");
			descend_frames += function && strcmp(function, "descend") == 0;
		}
		cr_assert_geq(descend_frames, 13, "the program's frames fill the stack");
		json_decref(frames);
	}
	traced_run_free(&run);
}

Test(attribution, a_stack_depth_of_0_records_no_stack)
{
	struct traced_run run;
	trace_program(&run, "stacks", (const char *const[]){"VRAMTRACE_STACK_DEPTH=0", NULL});
	cr_assert_eq(json_array_size(report_at(run.report, "devices/0/stacks")), 0);
	cr_assert_eq(json_array_size(report_at(run.report, "stack_frames")), 0);
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 112 * MiB);
	traced_run_free(&run);
}

Test(attribution, an_out_of_memory_failure_keeps_its_tag_its_snapshot_and_the_leaks)
{
	struct traced_run run;
	trace_program(&run, "oom_snapshot", (const char *const[]){"VRAMSIM_CAPACITY=8GiB", NULL});
	json_t *r = run.report;
	json_t *failure = report_at(r, "devices/0/failures/0");
	cr_assert_eq(report_int(failure, "bytes"), 100 * GiB);
	cr_assert_str_eq(report_string(failure, "tag"), "activations");
	cr_assert_eq(report_int(failure, "live_bytes"), 4 * GiB);
	cr_assert_eq(report_int(failure, "snapshot/live_by_tag/weights"), 3 * GiB);
	cr_assert_eq(report_int(failure, "snapshot/live_by_tag/kv_cache"), 1 * GiB);
	cr_assert_eq(json_object_size(report_at(failure, "snapshot/live_by_tag")), 2);
	cr_assert_eq(report_int(failure, "snapshot/top_stacks/0/bytes"), 3 * GiB);
	cr_assert_eq(report_int(failure, "snapshot/top_stacks/1/bytes"), 1 * GiB);
	frames_of(r, report_int(failure, "stack"));
	frames_of(r, report_int(failure, "snapshot/top_stacks/0/stack"));
	json_t *leaks = report_at(r, "devices/0/leaks");
	cr_assert_eq(json_array_size(leaks), 2);
	cr_assert_str_eq(report_string(leaks, "0/tag"), "weights");
	cr_assert_eq(report_int(leaks, "0/bytes"), 3 * GiB);
	cr_assert_eq(report_int(leaks, "0/count"), 1);
	cr_assert_str_eq(report_string(leaks, "1/tag"), "kv_cache");
	cr_assert_eq(report_int(leaks, "1/bytes"), 1 * GiB);
	traced_run_free(&run);
}

static void run_python(struct traced_run *run, bool preload)
{
	char path[600];
	snprintf(path, sizeof(path), "PYTHONPATH=%s", build_path("VT_TEST_PYTHON_DIR"));
	const char *env[] = {path, NULL};
	struct run_options options = {.preload = preload, .simulate = true, .env = env};
	char *argv[] = {(char *)build_path("VT_TEST_PYTHON"),
			(char *)build_path("VT_TEST_PYTHON_SCRIPT"), NULL};
	traced_run(run, &options, argv);
	cr_assert_eq(run->status, 0, "%s", run->err);
}

Test(attribution, the_python_helper_tags_nests_and_retags)
{
	struct traced_run run;
	run_python(&run, true);
	json_t *r = run.report;
	cr_assert(strstr(run.out, "available=True retagged=True pop=False"), "%s", run.out);
	cr_assert_eq(tag_number(r, "kv_cache", "at_peak_bytes"), 8 * MiB);
	cr_assert_eq(tag_number(r, "inner", "at_peak_bytes"), 2 * MiB);
	cr_assert_eq(tag_number(r, "weights", "at_peak_bytes"), 4 * MiB);
	cr_assert_eq(tag_number(r, "untagged", "at_peak_bytes"), 1 * MiB,
		     "re-tagged after the peak");
	cr_assert_eq(tag_number(r, "activations", "live_at_exit_bytes"), 1 * MiB);
	traced_run_free(&run);
}

Test(attribution, the_python_helper_without_vramtrace_does_nothing)
{
	struct traced_run run;
	run_python(&run, false);
	cr_assert(strstr(run.out, "available=False retagged=False pop=False"), "%s", run.out);
	cr_assert_eq(run.reports, 0);
	traced_run_free(&run);
}

/* Every one of count distinct tags comes back with its one allocation's
 * exact bytes; the timeline keeps its bounded split exact. */
static void check_many_tags(json_t *report, const char *prefix, long count)
{
	json_t *tags = report_at(report, "devices/0/tags");
	cr_assert_eq(json_array_size(tags), (size_t)count, "%zu tags", json_array_size(tags));
	json_t *seen = json_object();
	size_t i;
	json_t *entry;
	json_array_foreach (tags, i, entry)
		json_object_set(seen, json_string_value(json_object_get(entry, "tag")), entry);
	for (long t = 0; t < count; t++) {
		char name[64];
		snprintf(name, sizeof(name), "%s%ld", prefix, t);
		json_t *tag = json_object_get(seen, name);
		cr_assert(tag, "no tag %s", name);
		cr_assert_eq(json_integer_value(json_object_get(tag, "allocations")), 1, "%s",
			     name);
		cr_assert_eq(json_integer_value(json_object_get(tag, "bytes_allocated")),
			     64 * (1 + t % 7), "%s", name);
		cr_assert_eq(json_integer_value(json_object_get(tag, "peak_bytes")),
			     64 * (1 + t % 7), "%s", name);
	}
	json_decref(seen);
	/* The module rules name a few tags of their own. */
	cr_assert_geq(report_int(report, "tracer/distinct_tags"), count);
	cr_assert_eq(report_int(report, "tracer/tags_grouped"), 0);
	cr_assert_eq(json_array_size(report_at(report, "tracer/left_out")), 0);
	json_t *rows = report_at(report, "devices/0/timeline/rows");
	json_array_foreach (rows, i, entry) {
		json_t *by_tag = json_object_get(entry, "by_tag");
		cr_assert_leq(json_object_size(by_tag), 32);
		int64_t sum = 0;
		const char *key;
		json_t *value;
		json_object_foreach (by_tag, key, value)
			sum += json_integer_value(value);
		cr_assert_eq(sum, json_integer_value(json_object_get(entry, "max_bytes")));
	}
}

Test(attribution, seventy_thousand_tags_come_back, .timeout = 120)
{
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true};
	traced_run(&run, &options,
		   (char *[]){(char *)program_path("many_tags"), "api", "70000", NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(run.report, "%s", run.err);
	check_many_tags(run.report, "request-", 70000);
	cr_assert_eq(report_int(run.report, "devices/0/bytes_allocated"), 17920000);
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 448);
	cr_assert_eq(strstr(run.err, "vramtrace:"), NULL, "no warning: %s", run.err);
	traced_run_free(&run);
}

Test(attribution, six_thousand_nvtx_names_come_back, .timeout = 120)
{
	char injection[600];
	snprintf(injection, sizeof(injection), "NVTX_INJECTION64_PATH=%s",
		 build_path("VT_TEST_LIBRARY"));
	struct run_options options = {
		.preload = true, .simulate = true, .env = (const char *const[]){injection, NULL}};
	struct traced_run run;
	traced_run(&run, &options,
		   (char *[]){(char *)program_path("many_tags"), "nvtx", "6000", NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(run.report, "%s", run.err);
	check_many_tags(run.report, "aten::mm, seq = ", 6000);
	traced_run_free(&run);
}

/* Past the table's 1,048,574 names, a name is grouped under "other tags",
 * said in the report and in a warning, never silently untagged. */
static int64_t names_run(struct traced_run *run, const char *count)
{
	struct run_options options = {.preload = true, .simulate = true};
	traced_run(run, &options,
		   (char *[]){(char *)program_path("many_tags"), "names", (char *)count, NULL});
	cr_assert_eq(run->status, 0, "%s", run->err);
	cr_assert(run->report, "%s", run->err);
	return report_int(run->report, "tracer/distinct_tags");
}

Test(attribution, names_past_the_bound_are_grouped_and_said, .timeout = 120)
{
	struct traced_run run;
	/* The module rules' own names, beside "the last one". */
	int64_t rules = names_run(&run, "0") - 1;
	cr_assert_eq(report_int(run.report, "tracer/tags_grouped"), 0);
	traced_run_free(&run);
	cr_assert_eq(names_run(&run, "1048600"), 1048574, "the table is full");
	json_t *tag = report_tag(run.report, "devices/0", "other tags");
	cr_assert_eq(json_integer_value(json_object_get(tag, "bytes_allocated")), 4096);
	/* 1,048,601 names and the rules' own, 1,048,574 kept: the rest were
	 * grouped (a rule's name asked for again counts again). */
	cr_assert_geq(report_int(run.report, "tracer/tags_grouped"), 1048601 + rules - 1048574);
	json_t *left_out = report_at(run.report, "tracer/left_out");
	cr_assert_eq(json_array_size(left_out), 1);
	cr_assert_str_eq(json_string_value(json_array_get(left_out, 0)), "tags");
	cr_assert(strstr(run.err, "vramtrace: more than 1048574 distinct tags"), "%s", run.err);
	traced_run_free(&run);
}

/* A new tag's name that finds no host memory is grouped too, but the
 * warning said the program had named more than 1,048,574 tags (it had
 * named one). The tracer's threads are off: the one failing malloc is the
 * tag's. */
Test(attribution, a_tag_grouped_for_want_of_memory_is_said_so)
{
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMTRACE_SAMPLE_MS=0", "VRAMTRACE_CONTROL=0", NULL}};
	struct traced_run run;
	traced_run(&run, &options,
		   (char *[]){(char *)program_path("malloc_fails"), "0", "5", "tag", NULL});
	cr_assert_eq(run.status, 5, "%s", run.err);
	cr_assert_str_eq(run.out, "leaving with 5\n");
	cr_assert(run.report, "%s", run.err);
	cr_assert_eq(report_int(run.report, "tracer/tags_grouped"), 1);
	json_t *tag = report_tag(run.report, "devices/0", "other tags");
	cr_assert_eq(json_integer_value(json_object_get(tag, "bytes_allocated")), 1048576);
	cr_assert(strstr(run.err, "vramtrace: out of host memory for a new tag's name: such "
				  "names are grouped under \"other tags\" (1 times so far; "
				  "tracer.tags_grouped in the report)\n"),
		  "%s", run.err);
	cr_assert_null(strstr(run.err, "distinct tags"), "%s", run.err);
	traced_run_free(&run);
}

/* Arguments the library cannot take (None, an int or a list for a name, a
 * NUL inside, a lone surrogate, a float or an address past 64 bits, a path
 * cut by a NUL): each call gives False with vramtrace as without it, none
 * raises, and none tags or dumps anything. */
static const char arguments_refused[] = "push None False\n"
					"push 5 False\n"
					"push list False\n"
					"push NUL False\n"
					"push lone surrogate False\n"
					"tag None None\n"
					"pop False\n"
					"tag_pointer 1.5 False\n"
					"tag_pointer None name False\n"
					"tag_pointer -1 False\n"
					"tag_pointer 2**64 False\n"
					"dump 5 False\n"
					"dump NUL False\n";

static void run_arguments(struct traced_run *run, bool preload, const char *dump)
{
	char path[600];
	snprintf(path, sizeof(path), "PYTHONPATH=%s", build_path("VT_TEST_PYTHON_DIR"));
	struct run_options options = {
		.preload = preload, .simulate = true, .env = (const char *const[]){path, NULL}};
	traced_run(run, &options,
		   (char *[]){(char *)build_path("VT_TEST_PYTHON"),
			      (char *)python_program("python_api_arguments.py"), (char *)dump,
			      NULL});
	cr_assert_eq(run->status, 0, "%s", run->err);
}

Test(attribution, the_python_helper_refuses_what_the_library_cannot_take_alike)
{
	char dir[] = "/tmp/vramtrace-arguments-XXXXXX", dump[64], cut[80];
	cr_assert(mkdtemp(dir));
	snprintf(dump, sizeof(dump), "%s/dumped.json", dir);
	snprintf(cut, sizeof(cut), "%s.cut", dump);
	struct traced_run run;
	run_arguments(&run, false, dump);
	cr_assert_str_eq(run.out, arguments_refused);
	cr_assert_eq(run.reports, 0);
	traced_run_free(&run);

	run_arguments(&run, true, dump);
	char want[1024];
	snprintf(want, sizeof(want),
		 "%spush bytes True\npop True\ntag_pointer c_void_p True\ntag_pointer int True\n"
		 "dump pathlib.Path True\n",
		 arguments_refused);
	cr_assert_str_eq(run.out, want, "%s", run.err);
	cr_assert_eq(run.reports, 1, "no report from dump(5)");
	cr_assert_eq(access(dump, R_OK), 0, "dump(pathlib.Path) writes its report");
	cr_assert_neq(access(cut, F_OK), 0, "no report at a path cut by a NUL");
	json_t *tags = report_at(run.report, "devices/0/tags");
	cr_assert_eq(json_array_size(tags), 3, "untagged, ctypes and int; no \"hi\" nor \"a\"");
	cr_assert_eq(tag_number(run.report, "ctypes", "live_at_exit_bytes"), 0);
	cr_assert_eq(tag_number(run.report, "untagged", "live_at_exit_bytes"), 2 * MiB);
	cr_assert_eq(tag_number(run.report, "int", "live_at_exit_bytes"), 1 * MiB);
	traced_run_free(&run);
	remove_tree(dir);
}
