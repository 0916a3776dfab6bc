/* Every picture true: inlined functions named with their callers, one row
 * per place, the program's own line first, and listings that add up to
 * the peak, in the JSON, the exit summary, and the tool's formats. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

/* The harness turns the exit summary off; these tests read it. */
static const char *const summary[] = {"VRAMTRACE_SUMMARY=1", NULL};

/* What `vramtrace ARGS` prints on the report of run. */
static char *tool_output(const struct traced_run *run, const char *args)
{
	char command[2048];
	snprintf(command, sizeof(command), "NO_COLOR=1 %s %s 2>&1", build_path("VT_TEST_TOOL"),
		 args);
	for (char *at = strstr(command, "REPORT"); at; at = strstr(command, "REPORT")) {
		char rest[1024];
		snprintf(rest, sizeof(rest), "%s", at + 6);
		snprintf(at, sizeof(command) - (size_t)(at - command), "%s/report.json%s", run->dir,
			 rest);
	}
	FILE *pipe = popen(command, "r");
	cr_assert(pipe);
	size_t size = 1 << 20, used = 0;
	char *text = calloc(1, size);
	for (size_t got; (got = fread(text + used, 1, size - used - 1, pipe)) > 0;)
		used += got;
	pclose(pipe);
	return text;
}

static int number_after(const char *text, const char *key)
{
	const char *at = strstr(text, key);
	cr_assert(at, "no %s in %s", key, text);
	return atoi(at + strlen(key));
}

/* The resolved frames of the stack holding bytes at the peak. */
static json_t *frames_holding(json_t *report, int64_t bytes, int64_t *group)
{
	size_t i, f;
	json_t *stack, *entry, *index;
	json_array_foreach (report_at(report, "devices/0/stacks"), i, stack) {
		if (json_integer_value(json_object_get(stack, "at_peak_bytes")) != bytes)
			continue;
		json_int_t id = json_integer_value(json_object_get(stack, "id"));
		json_array_foreach (report_at(report, "stack_frames"), f, entry) {
			if (json_integer_value(json_object_get(entry, "id")) != id)
				continue;
			*group = report_int(entry, "group");
			json_t *frames = json_array();
			size_t k;
			json_array_foreach (json_object_get(entry, "frames"), k, index)
				json_array_append(
					frames, json_array_get(report_at(report, "frames"),
							       (size_t)json_integer_value(index)));
			json_object_set_new(entry, "resolved_for_test", frames);
			return frames;
		}
	}
	cr_assert_fail("no stack holds %lld bytes", (long long)bytes);
	return NULL;
}

/* The index of function at line in frames, -1 when absent. */
static int find(json_t *frames, const char *function, int line)
{
	size_t i;
	json_t *frame;
	json_array_foreach (frames, i, frame) {
		const char *name = json_string_value(json_object_get(frame, "function"));
		if (name && strcmp(name, function) == 0 &&
		    json_integer_value(json_object_get(frame, "line")) == line)
			return (int)i;
	}
	return -1;
}

Test(pictures, inlined_functions_named_with_their_callers)
{
	struct traced_run run;
	trace_program(&run, "inlined", summary);
	cr_assert_eq(run.status, 0, "%s", run.err);
	int weights = number_after(run.out, "weights_line="),
	    call = number_after(run.out, "call_line=");
	int64_t group;
	json_t *frames = frames_holding(run.report, 64 * MiB, &group);
	int inlined = find(frames, "load_weights", weights), caller = find(frames, "main", call);
	cr_assert_geq(inlined, 0, "load_weights at line %d", weights);
	cr_assert_eq(caller, inlined + 1, "main at line %d right after it", call);
	cr_assert(
		json_is_true(json_object_get(json_array_get(frames, (size_t)inlined), "inlined")));
	cr_assert_null(json_object_get(json_array_get(frames, (size_t)caller), "inlined"));
	char expected[256];
	snprintf(expected, sizeof(expected),
		 "vramtrace:     #1 64.00 MiB 88.9%% [untagged]\n"
		 "vramtrace:         at load_weights (inlined.c:%d)\n"
		 "vramtrace:            inlined in main (inlined.c:%d)\n",
		 weights, call);
	cr_assert(strstr(run.err, expected), "%s", run.err);
	char *text = tool_output(&run, "report REPORT");
	snprintf(expected, sizeof(expected),
		 "    #1 64.00 MiB 88.9%% [untagged], 1 allocation, own peak 64.00 MiB\n"
		 "        at load_weights (inlined.c:%d)\n"
		 "           inlined in main (inlined.c:%d)\n",
		 weights, call);
	cr_assert(strstr(text, expected), "%s", text);
	free(text);
	text = tool_output(&run, "report REPORT --format folded");
	snprintf(expected, sizeof(expected),
		 "untagged;main (inlined.c:%d);load_weights (inlined.c:%d) [inlined] %lld\n", call,
		 weights, 64 * MiB);
	cr_assert(strstr(text, expected), "%s", text);
	free(text);
	traced_run_free(&run);
}

/* Two calls on one source line are two stacks and one row: 3 MiB and 5 MiB
 * as 8.00 MiB, in the summary, text, folded and diff; the JSON keeps both
 * stacks, in one group. */
/* dwarf_getscopes loses the callers past the first inlined scope; every
 * one of them is named, at the line of its call. What the exit line says
 * is most live is a row, whose stacks it adds. */
Test(pictures, an_inline_chain_names_every_caller)
{
	struct traced_run run;
	trace_program(&run, "inline_chain", summary);
	cr_assert_eq(run.status, 0, "%s", run.err);
	int buffer = number_after(run.out, "buffer_line="),
	    cache = number_after(run.out, "cache_line="),
	    call = number_after(run.out, "call_line=");
	int64_t group;
	json_t *frames = frames_holding(run.report, 32 * MiB, &group);
	int inner = find(frames, "device_buffer", buffer);
	cr_assert_geq(inner, 0, "device_buffer at line %d", buffer);
	cr_assert_eq(find(frames, "load_cache", cache), inner + 1, "load_cache at line %d next",
		     cache);
	cr_assert_eq(find(frames, "main", call), inner + 2, "main at line %d after both", call);
	for (int i = inner; i < inner + 2; i++)
		cr_assert(json_is_true(
			json_object_get(json_array_get(frames, (size_t)i), "inlined")));
	char expected[320];
	snprintf(expected, sizeof(expected),
		 "vramtrace:         at device_buffer (inline_chain.c:%d)\n"
		 "vramtrace:            inlined in load_cache (inline_chain.c:%d)\n"
		 "vramtrace:            inlined in main (inline_chain.c:%d)\n",
		 buffer, cache, call);
	cr_assert(strstr(run.err, expected), "%s", run.err);
	/* The line of two allocations holds the most at exit, together. */
	cr_assert(strstr(run.err, "live at exit: 72.00 MiB in 3 allocations; most from stack #1 "
				  "[untagged]: 40.00 MiB in 2 allocations\n"),
		  "%s", run.err);
	char *text = tool_output(&run, "report REPORT --format folded");
	snprintf(expected, sizeof(expected),
		 "untagged;main (inline_chain.c:%d);load_cache (inline_chain.c:%d) [inlined];"
		 "device_buffer (inline_chain.c:%d) [inlined] %lld\n",
		 call, cache, buffer, 32 * MiB);
	cr_assert(strstr(text, expected), "%s", text);
	free(text);
	traced_run_free(&run);
}

/* Two stacks of one line that peak apart: the line's own peak is its high
 * point (100 MB), in the report, the text and the diff; where the history
 * did not keep the changes, bounds (100 MB to their 160 MB added). */
Test(pictures, a_rows_own_peak_is_its_high_point)
{
	struct traced_run run;
	trace_program(&run, "group_peak", summary);
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *rows = report_at(run.report, "group_peaks");
	cr_assert_eq(json_array_size(rows), 1, "one row of two stacks");
	json_t *row = json_array_get(rows, 0);
	cr_assert_eq(report_int(row, "device"), 0);
	cr_assert_eq(report_int(row, "members"), 2);
	cr_assert_eq(report_int(row, "peak_bytes"), 100000000);
	char *text = tool_output(&run, "report REPORT");
	cr_assert(strstr(text, "3 allocations, own peak 95.37 MiB; 2 stacks at these lines\n"),
		  "%s", text);
	free(text);
	text = tool_output(&run, "diff REPORT REPORT --by stack");
	cr_assert(strstr(text, "x1.00    95.37 MiB    95.37 MiB\n"), "%s", text);
	free(text);
	traced_run_free(&run);
	static const char *const no_history[] = {"VRAMTRACE_SUMMARY=1", "VRAMTRACE_HISTORY=0",
						 NULL};
	trace_program(&run, "group_peak", no_history);
	cr_assert_eq(json_array_size(report_at(run.report, "group_peaks")), 0);
	text = tool_output(&run, "report REPORT");
	cr_assert(strstr(text, "own peak 95.37 MiB to 152.59 MiB; 2 stacks at these lines\n"), "%s",
		  text);
	free(text);
	traced_run_free(&run);
}

/* Leaks of two stacks at one line are one row of 80 MB, listed after the
 * 50 MB from elsewhere (the report's order) and so cut by --top 1; and a
 * cut listing did not say what it left out of what was live. */
Test(pictures, leak_rows_are_largest_first_and_add_up)
{
	struct traced_run run;
	trace_program(&run, "leak_rows", summary);
	cr_assert_eq(run.status, 0, "%s", run.err);
	char *text = tool_output(&run, "report REPORT --top 1 --frames 1");
	char expected[400];
	snprintf(expected, sizeof(expected),
		 "  live at exit: 123.98 MiB in 3 allocations\n"
		 "    76.29 MiB in 2 allocations [untagged]\n"
		 "        at one_line (leak_rows.c:%d)\n"
		 "           ... 1 more frame\n"
		 "    and 1 more allocation, 47.68 MiB\n",
		 number_after(run.out, "line="));
	cr_assert(strstr(text, expected), "%s", text);
	free(text);
	text = tool_output(&run, "report REPORT --format html --top 1 -o -");
	cr_assert(strstr(text, "\"leak_groups\":[{\"bytes\":80000000,\"count\":2,"), "%s", text);
	cr_assert(strstr(text, "\"leak_rest\":{\"count\":1,\"bytes\":50000000}"), "%s", text);
	free(text);
	/* The page of two stack rows named the 50 MB "stack row #3". */
	text = tool_output(&run, "report REPORT --format html --top 2 -o -");
	const char *rows = strstr(text, "\"leak_groups\":[{\"bytes\":80000000,");
	cr_assert(rows, "%s", text);
	cr_assert(strstr(rows, "\"rank\":2},{\"bytes\":50000000,"), "%s", rows);
	const char *end = strchr(strstr(rows, "\"bytes\":50000000,"), '}');
	cr_assert(end && strncmp(end - 11, "\"rank\":null", 11) == 0, "%s", rows);
	free(text);
	traced_run_free(&run);
}

Test(pictures, one_row_per_line)
{
	struct traced_run run;
	trace_program(&run, "inlined", summary);
	int pair = number_after(run.out, "pair_line=");
	int64_t three, five;
	json_decref(frames_holding(run.report, 3 * MiB, &three));
	json_decref(frames_holding(run.report, 5 * MiB, &five));
	cr_assert_eq(three, five, "one group");
	cr_assert_eq(json_array_size(report_at(run.report, "devices/0/stacks")), 3);
	char expected[320];
	snprintf(expected, sizeof(expected),
		 "vramtrace:     #2 8.00 MiB 11.1%% [untagged], 2 stacks at these lines\n"
		 "vramtrace:         at main (inlined.c:%d)\n",
		 pair);
	cr_assert(strstr(run.err, expected), "%s", run.err);
	cr_assert(strstr(run.err, "live at exit: 72.00 MiB in 3 allocations; most from stack #1 "
				  "[untagged]: 64.00 MiB in 1 allocation\n"),
		  "%s", run.err);
	char *text = tool_output(&run, "report REPORT");
	snprintf(expected, sizeof(expected),
		 "    #2 8.00 MiB 11.1%% [untagged], 2 allocations, own peak 8.00 MiB; 2 stacks at "
		 "these lines\n        at main (inlined.c:%d)\n",
		 pair);
	cr_assert(strstr(text, expected), "%s", text);
	snprintf(expected, sizeof(expected),
		 "    8.00 MiB in 2 allocations [untagged], stack #2 above\n");
	cr_assert(strstr(text, expected), "%s", text);
	free(text);
	text = tool_output(&run, "report REPORT --format folded");
	snprintf(expected, sizeof(expected), "untagged;main (inlined.c:%d) %lld\n", pair, 8 * MiB);
	cr_assert(strstr(text, expected), "%s", text);
	free(text);
	text = tool_output(&run, "diff REPORT REPORT --by stack");
	snprintf(expected, sizeof(expected), "  main (inlined.c:%d)", pair);
	char *row = strstr(text, expected);
	cr_assert(row, "%s", text);
	cr_assert(strstr(row, "8.00 MiB     8.00 MiB          +0 B"), "%s", text);
	free(text);
	traced_run_free(&run);
}

/* A Python program allocating through a package (a stand-in for
 * numba.cuda): its own line leads, the package's frames folded; the
 * built-in rule tags it numba. */
Test(pictures, the_programs_own_line_first)
{
	char script[600];
	snprintf(script, sizeof(script), "%s", build_path("VT_TEST_PYTHON_SCRIPT"));
	snprintf(strrchr(script, '/') + 1, 100, "own_line.py");
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true, .env = summary};
	traced_run(&run, &options, (char *[]){(char *)build_path("VT_TEST_PYTHON"), script, NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	char weights[64], module[64], want[256];
	snprintf(weights, sizeof(weights), "load_weights (own_line.py:%d)",
		 marked_line_in(script, "load_weights"));
	snprintf(module, sizeof(module), "<module> (own_line.py:%d)",
		 marked_line_in(script, "main"));
	cr_assert_eq(report_int(report_tag(run.report, "devices/0", "numba"), "at_peak_bytes"),
		     64 * MiB);
	snprintf(want, sizeof(want),
		 "vramtrace:     #1 64.00 MiB 100.0%% [numba]\nvramtrace:         at %s, via "
		 "numba, ",
		 weights);
	cr_assert(strstr(run.err, want), "%s", run.err);
	snprintf(want, sizeof(want), "vramtrace:            %s\n", module);
	cr_assert(strstr(run.err, want), "%s", run.err);
	char *text = tool_output(&run, "report REPORT");
	snprintf(want, sizeof(want), "        at %s, via numba, ", weights);
	cr_assert(strstr(text, want), "%s", text);
	snprintf(want, sizeof(want), "           %s\n           ... ", module);
	cr_assert(strstr(text, want), "%s", text);
	free(text);
	text = tool_output(&run, "report REPORT --frames 1");
	cr_assert(strstr(text, "via numba, "), "%s", text);
	cr_assert_null(strstr(text, module), "%s", text);
	free(text);
	text = tool_output(&run, "report REPORT --all-frames");
	cr_assert(strstr(text, "           device_array (__init__.py:"), "%s", text);
	cr_assert_null(strstr(text, "via numba"), "%s", text);
	free(text);
	text = tool_output(&run, "diff REPORT REPORT --by stack --format markdown");
	snprintf(want, sizeof(want), "| `%s < %s < ..., via numba, ", weights, module);
	cr_assert(strstr(text, want), "%s", text);
	free(text);
	traced_run_free(&run);
}

/* 128 stacks of 4 KiB (512 KiB): the summary shows 5 and "123 more", the
 * text 20 and "108 more", folded all 128, each adding up to the peak. */
Test(pictures, listings_add_up_to_the_peak)
{
	struct traced_run run;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMSIM_GRANULARITY=1B", "VRAMTRACE_SUMMARY=1", NULL},
	};
	traced_run(&run, &options, (char *[]){(char *)program_path("many_stacks"), "7", NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 128 * 4096);
	cr_assert_eq(json_array_size(report_at(run.report, "devices/0/stacks")), 128,
		     "the default keeps every stack");
	cr_assert_eq(report_int(run.report, "devices/0/stacks_at_peak"), 128);
	cr_assert_eq(report_int(run.report, "devices/0/stacks_at_peak_bytes"), 128 * 4096);
	cr_assert(strstr(run.err, "vramtrace:     #5 4.00 KiB 0.8% [untagged]\n"), "%s", run.err);
	cr_assert(strstr(run.err, "vramtrace:     and 123 more stacks, 492.00 KiB\n"), "%s",
		  run.err);
	char *text = tool_output(&run, "report REPORT");
	cr_assert(strstr(text, "    #20 4.00 KiB 0.8% [untagged], 1 allocation"), "%s", text);
	cr_assert_null(strstr(text, "    #21 "), "%s", text);
	cr_assert(strstr(text, "    and 108 more stacks, 432.00 KiB\n"), "%s", text);
	free(text);
	text = tool_output(&run, "report REPORT --top 3");
	cr_assert(strstr(text, "    and 125 more stacks, 500.00 KiB\n"), "%s", text);
	free(text);
	text = tool_output(&run, "report REPORT --format folded | awk '{n++; s += $NF} END "
				 "{print n, s}'");
	cr_assert_str_eq(text, "128 524288\n");
	free(text);
	traced_run_free(&run);
	/* A report that keeps 20: folded says what the rest hold. */
	options.env = (const char *const[]){"VRAMSIM_GRANULARITY=1B", "VRAMTRACE_TOP=20", NULL};
	traced_run(&run, &options, (char *[]){(char *)program_path("many_stacks"), "7", NULL});
	text = tool_output(&run, "report REPORT --format folded | tail -1");
	cr_assert_str_eq(text, "untagged;[other stacks] 442368\n");
	free(text);
	text = tool_output(&run, "report REPORT --top 25");
	cr_assert(strstr(text, "    and 108 more stacks, 432.00 KiB\n"), "%s", text);
	free(text);
	traced_run_free(&run);
}

/* One line of code run under four tags is four stacks, one per tag
 * (mixed_tags.c): the folded lines add up to the peak, each tag's bytes
 * under that tag, and what a short listing leaves out is each tag's
 * remainder under its tag. */
Test(pictures, folded_lines_add_up_when_one_line_runs_under_several_tags)
{
	struct traced_run run;
	trace_program(&run, "mixed_tags", NULL);
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 15 * MiB);
	cr_assert_eq(report_int(report_tag(run.report, "devices/0", "a"), "at_peak_bytes"),
		     6 * MiB);
	char *text = tool_output(&run, "report REPORT --format folded | awk '{n++; s += $NF} END "
				       "{print n, s}'");
	cr_assert_str_eq(text, "5 15728640\n", "five stacks, the peak: %s", text);
	free(text);
	text = tool_output(&run, "report REPORT --format folded | grep -c other");
	cr_assert_str_eq(text, "0\n", "the stacks hold the whole peak");
	free(text);
	text = tool_output(&run, "report REPORT --format folded | grep '^d;' | awk '{print $NF}'");
	cr_assert_str_eq(text, "4194304\n", "d's 4 MiB alone under d: %s", text);
	free(text);
	traced_run_free(&run);
	const char *top[] = {"VRAMTRACE_TOP=1", NULL};
	trace_program(&run, "mixed_tags", top);
	text = tool_output(&run, "report REPORT --format folded | grep -c '\\[other stacks\\]'");
	cr_assert_str_eq(text, "4\n", "a remainder per tag: %s", text);
	free(text);
	text = tool_output(&run, "report REPORT --format folded | awk '{s += $NF} END {print s}'");
	cr_assert_str_eq(text, "15728640\n", "%s", text);
	free(text);
	traced_run_free(&run);
}

/* A dump written before the sampler's first reading has a device view of
 * its own: 32 MiB tracked beside what the device showed then. */
Test(pictures, a_dump_takes_its_own_device_reading)
{
	struct traced_run run;
	trace_program(&run, "dump_early", NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(run.reports, 2, "the dump and the exit report");
	for (unsigned i = 0; i < run.reports; i++) {
		json_t *report = run.all[i];
		cr_assert_str_eq(report_string(report, "tracer/nvml"), "available");
		json_t *view = report_at(report, "devices/0/device_view");
		cr_assert(json_is_object(view), "report %u has a device view", i);
		cr_assert_eq(report_int(view, "tracked_at_sample_bytes"), 32 * MiB);
	}
	traced_run_free(&run);
}

/* "--simulate=2" would be a device of 2 bytes: a capacity wants its unit,
 * and the refusal says how to ask for devices. */
Test(pictures, a_capacity_without_a_unit_is_refused)
{
	char fixture[512];
	snprintf(fixture, sizeof(fixture), "%s/llm_bf16.json", build_path("VT_TEST_FIXTURES"));
	struct traced_run run;
	run_tool(&run, (char *[]){"run", "--simulate=2", "--", "true", NULL}, NULL);
	cr_assert_eq(run.status, 2);
	cr_assert(strstr(run.err, "--simulate=2: expected a capacity with its unit, such as 80GiB, "
				  "or one per device, 80GiB,40GiB; the number of devices is "
				  "VRAMSIM_DEVICES"),
		  "%s", run.err);
	traced_run_free(&run);
	run_tool(&run, (char *[]){"run", "--simulate", "2", "--", "true", NULL}, NULL);
	cr_assert_eq(run.status, 2, "%s", run.err);
	cr_assert(strstr(run.err, "--simulate=2: expected a capacity with its unit"), "%s",
		  run.err);
	traced_run_free(&run);
	/* check names the device whose peak it compared. */
	run_tool(&run, (char *[]){"check", fixture, "--budget", "20GiB", NULL}, NULL);
	cr_assert_eq(run.status, 0);
	cr_assert(strstr(run.out, "fits: peak 18.29 GiB (19637144576 bytes) of device 0 + "), "%s",
		  run.out);
	traced_run_free(&run);
}

/* Two graph allocations freed outside their graphs (cudaFreeAsync,
 * cudaFree): graph memory freed, not unknown frees; the pool's untrimmed
 * reservation is the driver's, not a leak. */
Test(pictures, graph_memory_as_the_driver_holds_it)
{
	struct traced_run run;
	trace_program(&run, "graph_free_outside", summary);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(report_int(run.report, "tracer/unknown_frees"), 0);
	cr_assert_eq(report_int(run.report, "tracer/graph_frees"), 2);
	cr_assert_eq(report_int(run.report, "devices/0/graph_memory/allocation_nodes"), 2);
	cr_assert_eq(report_int(run.report, "devices/0/graph_memory/reserved_bytes"), 64 * MiB);
	cr_assert_eq(json_array_size(report_at(run.report, "devices/0/leaks")), 0);
	cr_assert(strstr(run.err, "vramtrace:   live at exit: 0 B in 0 allocations; graph memory "
				  "reserved, not trimmed: 64.00 MiB\n"),
		  "%s", run.err);
	/* The reservation rose once; the program made two graph allocations. */
	const char *kind =
		"    graph                       64.00 MiB 100.0%   own peak 64.00 MiB, 2 "
		"allocation nodes over the run\n";
	cr_assert(strstr(run.err, kind), "%s", run.err);
	char *text = tool_output(&run, "report REPORT");
	cr_assert(strstr(text, kind), "%s", text);
	cr_assert(strstr(text, "  live at exit: 0 B in 0 allocations; graph memory reserved, not "
			       "trimmed: 64.00 MiB\n"),
		  "%s", text);
	free(text);
	traced_run_free(&run);
}
