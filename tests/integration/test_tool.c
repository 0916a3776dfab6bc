/* The vramtrace tool on fixtures: check at the boundary, diff on crafted
 * pairs, merge of four ranks, every subcommand's help, and bad input. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static int check(const char *budget, const char *headroom)
{
	struct traced_run run;
	char *args[] = {"check",
			(char *)fixture_path("minimal.json"),
			"--budget",
			(char *)budget,
			headroom ? "--headroom" : NULL,
			(char *)headroom,
			NULL};
	run_tool(&run, args, NULL);
	int status = run.status;
	cr_assert(strstr(run.out, status == 0 ? "fits:" : "does not fit:"), "%s", run.out);
	traced_run_free(&run);
	return status;
}

/* minimal.json peaks at exactly 1000 bytes. */
Test(tool, check_fits_at_the_exact_byte_with_and_without_headroom)
{
	cr_assert_eq(check("1000B", NULL), 0, "equal fits");
	cr_assert_eq(check("999B", NULL), 1, "one byte short");
	cr_assert_eq(check("1001B", NULL), 0, "one byte spare");
	cr_assert_eq(check("1112B", "10%"), 0, "1112 - 111.2 = 1000.8 usable");
	cr_assert_eq(check("1111B", "10"), 1, "1111 - 111.1 = 999.9 usable");
	cr_assert_eq(check("2000B", "50%"), 0, "2000 - 1000 = 1000 usable");
	cr_assert_eq(check("1999B", "50%"), 1);
	cr_assert_eq(check("1KiB", "2.34%"), 0, "1024 - 23.96 = 1000.04 usable");
	cr_assert_eq(check("1KiB", "2.35%"), 1, "1024 - 24.06 = 999.93 usable");
}

Test(tool, check_prints_the_margin_and_units)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"check", (char *)fixture_path("llm_bf16.json"), "--budget", "80GB",
			    NULL},
		 NULL);
	cr_assert_eq(run.status, 0);
	cr_assert(strstr(run.out, "fits: peak 18.29 GiB (19637144576 bytes)"), "%s", run.out);
	cr_assert(strstr(run.out, "budget 74.51 GiB (80000000000 bytes); margin 56.22 GiB "
				  "(60362855424 bytes)"),
		  "%s", run.out);
	traced_run_free(&run);
}

Test(tool, check_rejects_bad_sizes_and_devices)
{
	static const char *const bad[][6] = {
		{"check", "@", "--budget", "80 GiBs", NULL},
		{"check", "@", "--budget", "-5", NULL},
		{"check", "@", "--budget", "1.5.5GiB", NULL},
		{"check", "@", "--budget", "80GiB", "--headroom", "101%"},
		{"check", "@", "--budget", "80GiB", "--device", "7"},
		{"check", "@", NULL},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *args[8] = {0};
		for (int a = 0; a < 6 && bad[i][a]; a++)
			args[a] = strcmp(bad[i][a], "@") ? (char *)bad[i][a]
							 : (char *)fixture_path("minimal.json");
		struct traced_run run;
		run_tool(&run, args, NULL);
		cr_assert_eq(run.status, 2, "case %zu: %s", i, run.err);
		cr_assert(strstr(run.err, "vramtrace check:"), "case %zu: %s", i, run.err);
		cr_assert_str_eq(run.out, "", "case %zu", i);
		traced_run_free(&run);
	}
}

/* The delta table of one section of a JSON diff, by key. */
static json_t *diff_row(json_t *diff, const char *section, const char *key)
{
	char path[64];
	snprintf(path, sizeof(path), "sections/%s/rows", section);
	size_t i;
	json_t *row;
	json_array_foreach (report_at(diff, path), i, row) {
		if (strcmp(json_string_value(json_object_get(row, "key")), key) == 0)
			return row;
	}
	cr_assert_fail("no %s row %s", section, key);
	return NULL;
}

static json_t *diff_json(const char *a, const char *b)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"diff", (char *)fixture_path(a), (char *)fixture_path(b), "--format",
			    "json", NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_error_t error;
	json_t *parsed = json_loads(run.out, 0, &error);
	cr_assert(parsed, "%s", error.text);
	traced_run_free(&run);
	return parsed;
}

Test(tool, a_doubled_batch_diffs_as_twice_the_activations)
{
	json_t *d = diff_json("llm_batch8.json", "llm_batch16.json");
	cr_assert_float_eq(
		json_real_value(json_object_get(diff_row(d, "tag", "activations"), "ratio")), 2.0,
		1e-9);
	cr_assert_float_eq(json_real_value(json_object_get(diff_row(d, "tag", "weights"), "ratio")),
			   1.0, 1e-9);
	cr_assert_eq(json_integer_value(
			     json_object_get(diff_row(d, "tag", "activations"), "delta_bytes")),
		     1ll << 30);
	cr_assert_str_eq(report_string(d, "sections/tag/rows/0/key"), "activations",
			 "largest change first");
	json_decref(d);
}

Test(tool, a_changed_dtype_diffs_as_twice_the_weights_and_the_same_workspace)
{
	json_t *d = diff_json("llm_bf16.json", "llm_fp32.json");
	cr_assert_eq(json_integer_value(json_object_get(diff_row(d, "tag", "weights"), "b_bytes")),
		     28000000000ll);
	cr_assert_eq(json_integer_value(json_object_get(diff_row(d, "tag", "weights"), "a_bytes")),
		     14000000000ll);
	cr_assert_eq(
		json_integer_value(json_object_get(diff_row(d, "tag", "workspace"), "delta_bytes")),
		0, "the workspace does not depend on the dtype");
	json_decref(d);
}

Test(tool, diff_with_a_stack_in_one_run_only)
{
	json_t *d = diff_json("minimal.json", "minimal_b.json");
	json_t *row = diff_row(d, "stack", "scratch_buffer (serve.c:120)");
	cr_assert_eq(json_integer_value(json_object_get(row, "a_bytes")), 0);
	cr_assert_eq(json_integer_value(json_object_get(row, "b_bytes")), 100);
	cr_assert(json_is_null(json_object_get(row, "ratio")));
	row = diff_row(d, "stack",
		       "kv::Cache::grow(unsigned long) (cache.cc:12) < main (serve.c:95)");
	cr_assert_eq(json_integer_value(json_object_get(row, "delta_bytes")), 400);
	json_decref(d);
}

Test(tool, diff_gates_on_peak_growth)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"diff", (char *)fixture_path("minimal.json"),
			    (char *)fixture_path("minimal_b.json"), "--fail-if-peak-grows", "49.99",
			    "--by", "device", NULL},
		 NULL);
	cr_assert_eq(run.status, 1, "50%% growth is more than 49.99%%");
	cr_assert(strstr(run.err, "device 0 peak grew +50.0%"), "%s", run.err);
	traced_run_free(&run);
	run_tool(&run,
		 (char *[]){"diff", (char *)fixture_path("minimal.json"),
			    (char *)fixture_path("minimal_b.json"), "--fail-if-peak-grows", "50%",
			    "--by", "device", NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "exactly 50%% is not more than 50%%");
	traced_run_free(&run);
}

/* The diff of minimal.json (peak 1000 bytes) and a copy peaking at peak,
 * gated at limit: the exit status, and stderr in err. */
static int gate_at(int64_t peak, const char *limit, char *err, size_t size)
{
	char path[] = "/tmp/vt-gate.XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	json_t *report = json_load_file(fixture_path("minimal.json"), 0, NULL);
	cr_assert(report);
	json_object_set_new(report_at(report, "devices/0/peak"), "bytes", json_integer(peak));
	json_object_set_new(report_at(report, "run"), "pid", json_integer(4242));
	cr_assert_eq(json_dumpfd(report, fd, 0), 0);
	close(fd);
	json_decref(report);
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"diff", (char *)fixture_path("minimal.json"), path,
			    "--fail-if-peak-grows", (char *)limit, "--by", "device", NULL},
		 NULL);
	unlink(path);
	snprintf(err, size, "%s", run.err);
	int status = run.status;
	traced_run_free(&run);
	return status;
}

/* --fail-if-peak-grows stopped at 100%: a gate on a peak more than
 * doubling could not be written. Any percentage is taken, compared
 * exactly; a negative one or none is refused. */
Test(tool, diff_gates_on_growth_past_100_percent)
{
	char err[512];
	cr_assert_eq(gate_at(3500, "250%", err, sizeof(err)), 0, "3.5 times is 250%%: %s", err);
	cr_assert_str_eq(err, "");
	cr_assert_eq(gate_at(3501, "250%", err, sizeof(err)), 1, "%s", err);
	cr_assert_str_eq(err, "vramtrace diff: device 0 peak grew +250.1%, more than 250.00%\n");
	cr_assert_eq(gate_at(3500, "249.99", err, sizeof(err)), 1, "%s", err);
	cr_assert_eq(gate_at(4000000000000000000, "399999999999999899.99", err, sizeof(err)), 1,
		     "%s", err);
	cr_assert_eq(gate_at(4000000000000000000, "399999999999999900%", err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(
		gate_at(4000000000000000000, "1000000000000000000000000000000%", err, sizeof(err)),
		0, "%s", err);
	static const char *const refused[] = {"-5", "nan", "inf", "1e3", "", "5%%"};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		cr_assert_eq(gate_at(3500, refused[i], err, sizeof(err)), 2, "%s", refused[i]);
		char expected[200];
		snprintf(expected, sizeof(expected),
			 "vramtrace diff: --fail-if-peak-grows '%s' is not a percentage of 0 or "
			 "more, such as 5, 12.5%% or 250%%\n",
			 refused[i]);
		cr_assert_str_eq(err, expected);
	}
	cr_assert_eq(gate_at(3500, "12.345", err, sizeof(err)), 2);
	cr_assert_str_eq(err, "vramtrace diff: --fail-if-peak-grows '12.345' is finer than a "
			      "hundredth of a percent; give at most two decimals, like 12.35\n");
}

/* A headroom with a third decimal was "not a percentage from 0 to 100"
 * (99.999 is one); it is said to be finer than a hundredth, in check and
 * fit alike, and one above 100 is said to be above it. */
Test(tool, a_headroom_is_a_percentage_to_a_hundredth)
{
	static const char *const given[] = {"99.999", "0.001", "101"};
	static const char *const reasons[] = {
		"is finer than a hundredth of a percent; give at most two decimals, like 12.35",
		"is finer than a hundredth of a percent; give at most two decimals, like 12.35",
		"is not a percentage from 0 to 100, like 10 or 12.5%"};
	for (int i = 0; i < 3; i++) {
		static const char *const commands[] = {"check", "fit"};
		for (int c = 0; c < 2; c++) {
			struct traced_run run;
			run_tool(&run,
				 (char *[]){(char *)commands[c],
					    (char *)fixture_path("minimal.json"), "--budget",
					    "1GiB", "--headroom", (char *)given[i], NULL},
				 NULL);
			char expected[300];
			snprintf(expected, sizeof(expected), "vramtrace %s: --headroom '%s' %s\n",
				 commands[c], given[i], reasons[i]);
			cr_assert_eq(run.status, 2);
			cr_assert_str_eq(run.err, expected);
			cr_assert_str_eq(run.out, "");
			traced_run_free(&run);
		}
	}
}

/* --by is read in place: empty items are passed over and add no section;
 * an unknown name or no name at all is refused. */
Test(tool, diff_sections_are_the_ones_named)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"diff", (char *)fixture_path("minimal.json"),
			    (char *)fixture_path("minimal_b.json"), "--by", ",tag,,kind,", NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.out, "by tag") && strstr(run.out, "by kind"), "%s", run.out);
	cr_assert_null(strstr(run.out, "by device"), "an empty item named a section: %s", run.out);
	cr_assert_null(strstr(run.out, "by stack"), "%s", run.out);
	traced_run_free(&run);
	static const char *const refused[] = {"", ",,", "tag,tags", "tag\n"};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		run_tool(&run,
			 (char *[]){"diff", (char *)fixture_path("minimal.json"),
				    (char *)fixture_path("minimal_b.json"), "--by",
				    (char *)refused[i], NULL},
			 NULL);
		cr_assert_eq(run.status, 2, "--by '%s'", refused[i]);
		cr_assert(strstr(run.err, "use device, kind, tag or stack"), "%s", run.err);
		traced_run_free(&run);
	}
}

Test(tool, four_ranks_merge_into_one_peak_skew_and_tags)
{
	struct traced_run run;
	char out[512];
	char dir[] = "/tmp/vt-merge.XXXXXX";
	cr_assert(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/merged.json", dir);
	run_tool(&run,
		 (char *[]){"merge", (char *)fixture_path("rank0.json"),
			    (char *)fixture_path("rank1.json"), (char *)fixture_path("rank2.json"),
			    (char *)fixture_path("rank3.json"), "-o", out, NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	traced_run_free(&run);
	json_error_t error;
	json_t *merged = json_load_file(out, 0, &error);
	cr_assert(merged, "%s", error.text);
	cr_assert_str_eq(report_string(merged, "schema"), "vramtrace/merged-1");
	cr_assert_eq(json_array_size(report_at(merged, "ranks")), 4);
	cr_assert_eq(report_int(merged, "peak/max_bytes"), 22321499136ll);
	cr_assert_str_eq(report_string(merged, "peak/max_rank"), "3");
	cr_assert_eq(report_int(merged, "peak/min_bytes"), 19100273664ll);
	cr_assert_eq(report_int(merged, "peak/skew_bytes"), 22321499136ll - 19100273664ll);
	cr_assert_str_eq(report_string(merged, "tags/0/tag"), "weights");
	cr_assert_eq(report_int(merged, "tags/0/at_peak_sum_bytes"), 4 * 14000000000ll);
	cr_assert_eq(report_int(merged, "tags/0/at_peak_max_bytes"), 14000000000ll);
	json_decref(merged);
	/* report and diff read the merged form. */
	run_tool(&run, (char *[]){"report", out, NULL}, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.out, "4 ranks: peak max 20.79 GiB (rank 3)"), "%s", run.out);
	traced_run_free(&run);
	run_tool(&run, (char *[]){"diff", out, out, "--by", "device", NULL}, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.out, "rank 3 device 0"), "%s", run.out);
	traced_run_free(&run);
	run_tool(&run, (char *[]){"diff", out, (char *)fixture_path("rank0.json"), NULL}, NULL);
	cr_assert_eq(run.status, 2, "a merged report against a single one");
	traced_run_free(&run);
	run_tool(&run, (char *[]){"check", out, "--budget", "20GiB", NULL}, NULL);
	cr_assert_eq(run.status, 1, "rank 3 does not fit 20 GiB");
	traced_run_free(&run);
	remove_tree(dir);
}

Test(tool, every_subcommand_has_help)
{
	static const char *const commands[] = {"run", "report", "diff", "check", "merge"};
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		struct traced_run run;
		run_tool(&run, (char *[]){(char *)commands[i], "--help", NULL}, NULL);
		cr_assert_eq(run.status, 0, "%s", commands[i]);
		cr_assert(strstr(run.out, "Usage: vramtrace "), "%s", commands[i]);
		cr_assert(strstr(run.out, "Exit status") || strstr(run.out, "128+N"), "%s",
			  commands[i]);
		traced_run_free(&run);
	}
}

Test(tool, colour_only_on_a_terminal)
{
	struct traced_run run;
	run_tool(&run, (char *[]){"report", (char *)fixture_path("minimal.json"), NULL}, NULL);
	cr_assert_null(strstr(run.out, "\033["), "a file gets no colour");
	traced_run_free(&run);
	if (access("/usr/bin/script", X_OK) != 0)
		cr_skip_test("no script(1) to make a terminal");
	char command[1200];
	snprintf(command, sizeof(command),
		 "script -qec '%s report %s' /dev/null | grep -q \"$(printf '\\033')\\[1m\"",
		 build_path("VT_TEST_TOOL"), fixture_path("minimal.json"));
	cr_assert_eq(system(command), 0, "a terminal gets colour");
	snprintf(command, sizeof(command),
		 "NO_COLOR=1 script -qec '%s report %s' /dev/null | grep -q \"$(printf "
		 "'\\033')\\[1m\"",
		 build_path("VT_TEST_TOOL"), fixture_path("minimal.json"));
	cr_assert_neq(system(command), 0, "NO_COLOR turns it off");
}

/* Bad input: every case exits 2 with a message naming the file, and no
 * output file appears. */
struct bad_input {
	const char *name;
	const char *content; /* NULL: made by the test */
	const char *message; /* a part of the error message */
};

static const struct bad_input bad_inputs[] = {
	{"empty", "", ".json:1:0: '[' or '{' expected near end of file"},
	{"not_json", "hello", ".json:1:5: '[' or '{' expected near 'hello'"},
	{"truncated", "{\"schema\": \"vramtrace/1\", \"run\": {", "end of file"},
	{"array", "[1, 2]", "not a JSON object"},
	{"no_schema", "{\"run\": {}}", "no \"schema\" field"},
	{"wrong_schema", "{\"schema\": \"heaptrack/1\"}", "not a vramtrace report"},
	{"newer_schema", "{\"schema\": \"vramtrace/2\"}", "a newer vramtrace wrote it"},
	{"non_utf8", "{\"schema\": \"vramtrace/1\", \"x\": \"\xff\xfe\"}", "unable to decode"},
	{"duplicate_key", "{\"schema\": \"vramtrace/1\", \"schema\": \"vramtrace/1\"}",
	 "duplicate"},
	{"negative_bytes", NULL, "devices[0].peak.bytes: expected a non-negative integer"},
	{"string_for_number", NULL, "devices[0].allocations: expected a non-negative integer"},
	{"deep_nesting", NULL, "maximum parsing depth reached"},
	{"huge_number", "{\"schema\": \"vramtrace/1\", \"n\": 99999999999999999999999}",
	 "too big integer"},
	{"count_past_2_62", NULL,
	 "devices[0].peak.bytes: expected a non-negative integer below 2^62"},
	{"device_twice", NULL, ".devices[1]: device 0 appears twice"},
	{"frame_not_in_table", NULL, "frame 7 is not in the frame table (1)"},
};

static char *make_content(const char *name)
{
	if (strcmp(name, "deep_nesting") == 0) {
		/* spaced as no denser than a report, so that the depth is what
		 * refuses it */
		size_t depth = 100000;
		char *text = malloc(depth * 16 + 1);
		memset(text, ' ', depth * 16);
		for (size_t i = 0; i < depth; i++)
			text[i * 16] = '[';
		text[depth * 16] = '\0';
		return text;
	}
	char path[512];
	snprintf(path, sizeof(path), "%s/minimal.json", build_path("VT_TEST_FIXTURES"));
	json_t *report = json_load_file(path, 0, NULL);
	cr_assert(report);
	json_t *device = json_array_get(json_object_get(report, "devices"), 0);
	if (strcmp(name, "negative_bytes") == 0)
		json_object_set_new(json_object_get(device, "peak"), "bytes", json_integer(-1));
	else if (strcmp(name, "count_past_2_62") == 0)
		json_object_set_new(json_object_get(device, "peak"), "bytes",
				    json_integer(1ll << 62));
	else if (strcmp(name, "device_twice") == 0)
		json_array_append_new(json_object_get(report, "devices"), json_deep_copy(device));
	else if (strcmp(name, "frame_not_in_table") == 0) {
		json_object_set_new(
			report, "frames",
			json_pack("[{s:s, s:n, s:n}]", "function", "main", "module", "file"));
		json_object_set_new(report, "stack_frames",
				    json_pack("[{s:i, s:[i, i]}]", "id", 1, "frames", 0, 7));
	} else
		json_object_set_new(device, "allocations", json_string("four"));
	char *text = json_dumps(report, 0);
	json_decref(report);
	return text;
}

Test(tool, every_bad_input_exits_2_naming_its_file_in_every_command)
{
	char dir[] = "/tmp/vt-bad.XXXXXX";
	cr_assert(mkdtemp(dir));
	static const char *const commands[] = {"report", "check", "diff", "merge"};
	for (size_t i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]); i++) {
		const struct bad_input *bad = &bad_inputs[i];
		char path[512], out[512];
		snprintf(path, sizeof(path), "%s/%s.json", dir, bad->name);
		snprintf(out, sizeof(out), "%s/out-%s", dir, bad->name);
		char *made = bad->content ? NULL : make_content(bad->name);
		FILE *file = fopen(path, "w");
		fputs(bad->content ? bad->content : made, file);
		fclose(file);
		free(made);
		for (size_t c = 0; c < 4; c++) {
			char *args[8] = {(char *)commands[c], path, NULL};
			if (c == 0)
				args[2] = "-o", args[3] = out;
			if (c == 1)
				args[2] = "--budget", args[3] = "1GiB";
			if (c == 2)
				args[2] = (char *)fixture_path("minimal.json");
			if (c == 3)
				args[2] = "-o", args[3] = out;
			struct traced_run run;
			run_tool(&run, args, NULL);
			cr_assert_eq(run.status, 2, "%s %s: %d %s", commands[c], bad->name,
				     run.status, run.err);
			cr_assert(strstr(run.err, path), "%s %s names no file: %s", commands[c],
				  bad->name, run.err);
			cr_assert(strstr(run.err, bad->message), "%s %s: %s", commands[c],
				  bad->name, run.err);
			cr_assert_neq(access(out, F_OK), 0, "%s %s left output", commands[c],
				      bad->name);
			traced_run_free(&run);
		}
	}
	remove_tree(dir);
}

Test(tool, a_missing_file_a_directory_and_a_huge_file_exit_2)
{
	struct traced_run run;
	run_tool(&run, (char *[]){"report", "/no/such/report.json", NULL}, NULL);
	cr_assert_eq(run.status, 2);
	cr_assert(strstr(run.err, "/no/such/report.json: cannot read"), "%s", run.err);
	traced_run_free(&run);
	run_tool(&run, (char *[]){"report", "/tmp", NULL}, NULL);
	cr_assert_eq(run.status, 2);
	cr_assert(strstr(run.err, "is a directory"), "%s", run.err);
	traced_run_free(&run);
	char path[] = "/tmp/vt-huge.XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(ftruncate(fd, 2ll << 30), 0); /* sparse: costs nothing */
	close(fd);
	run_tool(&run, (char *[]){"report", path, NULL}, NULL);
	unlink(path);
	cr_assert_eq(run.status, 2);
	cr_assert(strstr(run.err, "larger than any report"), "%s", run.err);
	traced_run_free(&run);
}

Test(tool, merge_refuses_the_same_run_twice)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"merge", (char *)fixture_path("rank0.json"),
			    (char *)fixture_path("rank1.json"), (char *)fixture_path("rank0.json"),
			    "-o", "/tmp/vt-never-written.json", NULL},
		 NULL);
	cr_assert_eq(run.status, 2, "%s", run.err);
	cr_assert(strstr(run.err, "rank0.json and "), "%s", run.err);
	cr_assert(strstr(run.err, "hold the same run"), "%s", run.err);
	cr_assert_neq(access("/tmp/vt-never-written.json", F_OK), 0);
	traced_run_free(&run);
}

/* 2^15 distinct stacks, every one live at the peak: the report stays
 * compact (each frame written once), and every command reads it in linear
 * time (the test's timeout is the bound; it took minutes when quadratic). */
Test(tool, thirty_two_thousand_stacks_are_written_read_and_add_up_to_the_peak, .timeout = 120)
{
	struct traced_run traced;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMTRACE_TOP=100000", NULL},
	};
	traced_run(&traced, &options, (char *[]){(char *)program_path("many_stacks"), "15", NULL});
	cr_assert_eq(traced.status, 0, "%s", traced.err);
	cr_assert_eq(json_array_size(report_at(traced.report, "devices/0/stacks")), 32768);
	cr_assert_eq(json_array_size(report_at(traced.report, "stack_frames")), 32768);
	cr_assert_eq(report_int(traced.report, "devices/0/peak/bytes"), 32768 * 4096);
	char path[400], command[1200];
	snprintf(path, sizeof(path), "%s/report.json", traced.dir);
	struct stat status;
	cr_assert_eq(stat(path, &status), 0);
	cr_assert_lt(status.st_size, 32 << 20, "%lld bytes", (long long)status.st_size);
	const char *vt = build_path("VT_TEST_TOOL");
	snprintf(command, sizeof(command), "%s report %s > /dev/null", vt, path);
	cr_assert_eq(system(command), 0);
	/* every row and every leak listed: each leak finds its row through an
	 * index (a scan per leak took 15 s at 8,000 rows) */
	snprintf(command, sizeof(command), "%s report %s --top 100000 | grep -c 'above$'", vt,
		 path);
	FILE *listed = popen(command, "r");
	long leaks_with_rows = 0;
	cr_assert_eq(fscanf(listed, "%ld", &leaks_with_rows), 1);
	pclose(listed);
	cr_assert_eq(leaks_with_rows, json_array_size(report_at(traced.report, "devices/0/leaks")));
	/* Every listed stack folds to its own line, and the lines add up to the peak. */
	snprintf(command, sizeof(command),
		 "%s report %s --format folded | awk '{n++; s += $NF} END {print n, s}'", vt, path);
	FILE *folded = popen(command, "r");
	long long lines = 0, bytes = 0;
	cr_assert_eq(fscanf(folded, "%lld %lld", &lines, &bytes), 2);
	pclose(folded);
	cr_assert_eq(lines, 32768);
	cr_assert_eq(bytes, 32768ll * 4096);
	snprintf(command, sizeof(command), "%s diff %s %s --format json > %s/diff.json", vt, path,
		 path, traced.dir);
	cr_assert_eq(system(command), 0);
	snprintf(path, sizeof(path), "%s/diff.json", traced.dir);
	json_t *diff = json_load_file(path, 0, NULL);
	cr_assert(diff);
	json_decref(diff);
	traced_run_free(&traced);
}

/* minimal.json as the run at label=value with the given peak, written to
 * dir/name; each run a process of its own. */
static void fit_run(const char *dir, const char *name, const char *label, const char *value,
		    json_int_t peak, json_int_t pid, char *path, size_t size)
{
	json_t *report = json_load_file(fixture_path("minimal.json"), 0, NULL);
	cr_assert(report);
	json_t *run = json_object_get(report, "run");
	json_object_set_new(run, "labels", json_pack("{s:s}", label, value));
	json_object_set_new(run, "pid", json_integer(pid));
	json_t *device = json_array_get(json_object_get(report, "devices"), 0);
	json_object_set_new(json_object_get(device, "peak"), "bytes", json_integer(peak));
	snprintf(path, size, "%s/%s", dir, name);
	cr_assert_eq(json_dump_file(report, path, 0), 0);
	json_decref(report);
}

/* fit printed settings with %g: a context of 1048576 read "1.04858e+06",
 * and a prediction asked at 2097152 said it was at "2.09715e+06"; a cost
 * under a byte per unit read "0 B per context". */
Test(tool, fit_shows_settings_and_costs_as_they_are)
{
	char dir[] = "/tmp/vt-fit-text.XXXXXX";
	cr_assert(mkdtemp(dir));
	char paths[3][600];
	static const char *const contexts[] = {"262144", "524288", "1048576"};
	for (int i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof(name), "c%d.json", i);
		fit_run(dir, name, "context", contexts[i], 1000 << i, 100 + i, paths[i],
			sizeof(paths[i]));
	}
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"fit", paths[0], paths[1], paths[2], "--predict", "context=2097152",
			    NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.out, "variables: context 262144 to 1048576\n"), "%s", run.out);
	cr_assert(strstr(run.out, "peak             = 0.00381 B per context "), "%s", run.out);
	cr_assert(strstr(run.out, "each +1 context costs 0.00381 B\n"), "%s", run.out);
	cr_assert(strstr(run.out, "prediction at context=2097152: peak 7.81 KiB (8000 bytes)"),
		  "%s", run.out);
	cr_assert_str_eq(run.err, "vramtrace fit: warning: context=2097152 is 1048576 above the "
				  "measured 262144 to 1048576 (133% of that range): the answer "
				  "is extrapolated\n");
	cr_assert_null(strstr(run.out, "e+0"), "%s", run.out);
	traced_run_free(&run);
	remove_tree(dir);
}

/* A cost between 100 B and a KiB that is not whole was printed with %.3g:
 * 1023.5 B per batch read "1.02e+03 B per batch" (and on the page,
 * "1024 B"). */
Test(tool, fit_says_a_cost_under_a_kib_in_plain_decimals)
{
	char dir[] = "/tmp/vt-fit-cost.XXXXXX";
	cr_assert(mkdtemp(dir));
	char paths[3][600];
	static const char *const batches[] = {"2", "20000", "40000"};
	static const json_int_t peaks[] = {2047, 20470000, 40940000};
	for (int i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof(name), "b%d.json", i);
		fit_run(dir, name, "batch", batches[i], peaks[i], 100 + i, paths[i],
			sizeof(paths[i]));
	}
	struct traced_run run;
	run_tool(&run, (char *[]){"fit", paths[0], paths[1], paths[2], NULL}, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.out, "peak             = 1023.5 B per batch "), "%s", run.out);
	cr_assert(strstr(run.out, "each +1 batch costs 1023.5 B\n"), "%s", run.out);
	cr_assert_null(strstr(run.out, "e+0"), "%s", run.out);
	traced_run_free(&run);
	remove_tree(dir);
}

/* fit's text printed labels and tags as the reports held them: a label
 * holding ESC [2J cleared the terminal it was shown on. */
Test(tool, fit_shows_labels_and_tags_with_escapes_escaped)
{
	char dir[] = "/tmp/vt-fit-escape.XXXXXX";
	cr_assert(mkdtemp(dir));
	char paths[2][600];
	for (int i = 0; i < 2; i++) {
		char name[32], value[8];
		snprintf(name, sizeof(name), "r%d.json", i);
		snprintf(value, sizeof(value), "%d", i + 1);
		fit_run(dir, name, "b\x1b[2J", value, 1000 * (i + 1), 200 + i, paths[i],
			sizeof(paths[i]));
	}
	struct traced_run run;
	run_tool(&run, (char *[]){"fit", paths[0], paths[1], "--predict", "b\x1b[2J=3", NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_null(strchr(run.out, '\x1b'), "%s", run.out);
	cr_assert(strstr(run.out, "variables: b\\x1b[2J 1 to 2\n"), "%s", run.out);
	cr_assert(strstr(run.out, "prediction at b\\x1b[2J=3: "), "%s", run.out);
	traced_run_free(&run);
	remove_tree(dir);
}

/* minimal.json as process pid with its device 0 numbered ordinal, or with
 * no device when ordinal < 0; its path, to free and unlink. */
static char *renumbered(int pid, int ordinal)
{
	json_t *report = json_load_file(fixture_path("minimal.json"), 0, NULL);
	cr_assert(report);
	json_object_set_new(json_object_get(report, "run"), "pid", json_integer(pid));
	if (ordinal < 0)
		json_array_clear(json_object_get(report, "devices"));
	else
		json_object_set_new(report_at(report, "devices/0"), "ordinal",
				    json_integer(ordinal));
	char *path = strdup("/tmp/vt-renumbered.XXXXXX");
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(json_dumpfd(report, fd, 0), 0);
	close(fd);
	json_decref(report);
	return path;
}

/* Two messages that said what the code held, not what was meant: "device
 * 1 peak grew new" for a device only B has, and fit's "no device -1 in
 * this report" for a report with no device. */
Test(tool, a_new_device_and_a_report_without_one_are_said_plainly)
{
	char *moved = renumbered(78, 1), *none = renumbered(77, -1);
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"diff", (char *)fixture_path("minimal.json"), moved,
			    "--fail-if-peak-grows", "10", NULL},
		 NULL);
	cr_assert_eq(run.status, 1);
	cr_assert_str_eq(run.err, "vramtrace diff: device 1 peak is new in B (none in A), counted "
				  "as growing more than 10.00%\n");
	traced_run_free(&run);
	run_tool(&run, (char *[]){"fit", none, (char *)fixture_path("minimal.json"), NULL}, NULL);
	cr_assert_eq(run.status, 2);
	char expected[300];
	snprintf(expected, sizeof(expected),
		 "vramtrace fit: %s: no device in this report, so no peak to fit\n", none);
	cr_assert_str_eq(run.err, expected);
	traced_run_free(&run);
	unlink(moved);
	unlink(none);
	free(moved);
	free(none);
}

/* Tags past --top were left out of the text without a word, so the rows
 * did not add up to the peak they were shares of. */
Test(tool, tags_past_top_are_said_in_one_line)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"report", (char *)fixture_path("llm_bf16.json"), "--top", "2", NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.out, "    kv_cache                     4.00 GiB  21.9%   own peak "
				  "4.00 GiB, 32 allocations over the run\n"
				  "    and 2 more tags, 1.25 GiB at the peak\n"),
		  "%s", run.out);
	traced_run_free(&run);
	run_tool(&run,
		 (char *[]){"report", (char *)fixture_path("llm_bf16.json"), "--top", "4", NULL},
		 NULL);
	cr_assert_null(strstr(run.out, "more tag"), "%s", run.out);
	traced_run_free(&run);
}

/* What was live when an allocation failed named every tag whatever --top
 * said: a run with 10,000 tags printed a line of 200 KB per failure. */
Test(tool, tags_live_at_a_failure_are_bounded_by_top)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"report", (char *)fixture_path("minimal.json"), "--top", "1", NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(
		strstr(run.out, "      live then: kv_cache 400 B (57.1%), and 1 more tag 300 B\n"),
		"%s", run.out);
	traced_run_free(&run);
	run_tool(&run,
		 (char *[]){"report", (char *)fixture_path("minimal.json"), "--top", "2", NULL},
		 NULL);
	cr_assert(
		strstr(run.out, "      live then: kv_cache 400 B (57.1%), weights 300 B (42.9%)\n"),
		"%s", run.out);
	traced_run_free(&run);
}
