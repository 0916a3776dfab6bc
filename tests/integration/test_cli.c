/* The command line as a user meets it: one option parser (values with a
 * space or =, did-you-mean, one error line), --device everywhere, special
 * files refused at once, numbers that never wrap (requests to 2^64-1,
 * budgets, diffs, fits) and no escape reaching the terminal; `run`'s own
 * are in test_run_tool.c. Every expected text is exact. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* The tool exits 2 with exactly this on stderr and nothing on stdout. */
static void refused(char **args, const char *expected)
{
	struct traced_run run;
	run_tool(&run, args, NULL);
	cr_assert_eq(run.status, 2, "%s: %d %s", args[0], run.status, run.err);
	cr_assert_str_eq(run.err, expected);
	cr_assert_str_eq(run.out, "");
	traced_run_free(&run);
}

Test(cli, misspelt_and_incomplete_options_say_one_line)
{
	const char *f = fixture_path("minimal.json");
	refused((char *[]){"report", (char *)f, "--formt", "html", NULL},
		"vramtrace report: unknown option '--formt'; did you mean --format? (see vramtrace "
		"report --help)\n");
	refused((char *[]){"report", (char *)f, "--format", NULL},
		"vramtrace report: --format needs a value: FORMAT: text, json, folded, trace or "
		"html (see vramtrace report --help)\n");
	refused((char *[]){"diff", (char *)f, (char *)f, "--format", "md", NULL},
		"vramtrace diff: unknown format 'md' (text, markdown, json or html) (see vramtrace "
		"diff --help)\n");
	refused((char *[]){"check", (char *)f, "--budgte=1GiB", NULL},
		"vramtrace check: unknown option '--budgte=1GiB'; did you mean --budget? (see "
		"vramtrace check --help)\n");
	refused((char *[]){"merge", "--output", NULL},
		"vramtrace merge: --output needs a value: OUT, a file (- for standard output) (see "
		"vramtrace merge --help)\n");
	refused((char *[]){"fit", (char *)f, "--frobnicate", NULL},
		"vramtrace fit: unknown option '--frobnicate' (see vramtrace fit --help)\n");
	refused((char *[]){"run", "--simulte", "--", "true", NULL},
		"vramtrace run: unknown option '--simulte'; did you mean --simulate? (see "
		"vramtrace "
		"run --help)\n");
	refused((char *[]){"run", "--no-framework-cache=yes", "--", "true", NULL},
		"vramtrace run: --no-framework-cache takes no value (see vramtrace run --help)\n");
	refused((char *[]){"reprot", (char *)f, NULL}, "vramtrace: unknown command 'reprot'; did "
						       "you mean report? (see vramtrace --help)\n");
	refused((char *[]){NULL}, "vramtrace: give a command: run, report, diff, check, merge, "
				  "fit, ps, snapshot, top, metrics (see vramtrace --help)\n");
	refused((char *[]){"snapshot", "--reset-peek", "1", NULL},
		"vramtrace snapshot: unknown option '--reset-peek'; did you mean --reset-peak? "
		"(see "
		"vramtrace snapshot --help)\n");
	refused((char *[]){"top", "--interval", NULL},
		"vramtrace top: --interval needs a value: SECONDS, e.g. 0.5 (see vramtrace top "
		"--help)\n");
	refused((char *[]){"metrics", "--textfile", "a", "--listen", "b", NULL},
		"vramtrace metrics: give --textfile or --listen, not both (see vramtrace metrics "
		"--help)\n");
}

Test(cli, values_after_a_space_or_an_equals_sign)
{
	const char *f = fixture_path("minimal.json");
	struct traced_run spaced, joined;
	run_tool(&spaced,
		 (char *[]){"check", (char *)f, "--budget", "1000", "--headroom", "0", NULL}, NULL);
	run_tool(&joined, (char *[]){"check", "--budget=1000", "--headroom=0", (char *)f, NULL},
		 NULL);
	cr_assert_eq(spaced.status, 0, "%s", spaced.err);
	cr_assert_str_eq(spaced.out,
			 "fits: peak 1000 B (1000 bytes) of device 0 + headroom 0 B (0.00%) <= "
			 "budget 1000 B (1000 bytes); margin 0 B (0 bytes)\n");
	cr_assert_str_eq(joined.out, spaced.out);
	traced_run_free(&spaced);
	traced_run_free(&joined);
	struct traced_run a, b;
	run_tool(&a, (char *[]){"report", (char *)f, "-o", "-", "--top=3", NULL}, NULL);
	run_tool(&b, (char *[]){"report", "--top", "3", (char *)f, NULL}, NULL);
	cr_assert_eq(a.status, 0, "%s", a.err);
	cr_assert_str_eq(a.out, b.out);
	traced_run_free(&a);
	traced_run_free(&b);
}

Test(cli, a_device_the_report_lacks_is_an_error_everywhere)
{
	const char *f = fixture_path("minimal.json");
	char expected[800];
	snprintf(expected, sizeof(expected),
		 "vramtrace report: %s has no device 3 (its devices: 0)\n", f);
	refused((char *[]){"report", (char *)f, "--device", "3", NULL}, expected);
	snprintf(expected, sizeof(expected),
		 "vramtrace check: %s has no device 2 (its devices: 0)\n", f);
	refused((char *[]){"check", (char *)f, "--budget", "1GiB", "--device", "2", NULL},
		expected);
	snprintf(expected, sizeof(expected),
		 "vramtrace diff: %s has no device 1 (its devices: 0)\n", f);
	refused((char *[]){"diff", (char *)f, (char *)fixture_path("minimal_b.json"), "--device",
			   "1", NULL},
		expected);
	snprintf(expected, sizeof(expected), "vramtrace fit: %s has no device 5 (its devices: 0)\n",
		 f);
	refused((char *[]){"fit", (char *)f, "--device", "5", NULL}, expected);
}

Test(cli, merge_writes_to_standard_output_without_o)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"merge", (char *)fixture_path("rank0.json"),
			    (char *)fixture_path("rank1.json"), NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *merged = json_loads(run.out, 0, NULL);
	cr_assert(merged, "%s", run.out);
	cr_assert_str_eq(report_string(merged, "schema"), "vramtrace/merged-1");
	cr_assert_eq(json_array_size(report_at(merged, "ranks")), 2);
	json_decref(merged);
	traced_run_free(&run);
}

/* A FIFO with no writer, a directory, /dev/zero: each subcommand answers at
 * once (the test's timeout would catch a hang). Standard input is read
 * when asked for with -. */
Test(cli, special_files_are_refused_at_once, .timeout = 60)
{
	char dir[] = "/tmp/vt-fifo.XXXXXX", fifo[64];
	cr_assert(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo.json", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	const char *f = fixture_path("minimal.json");
	char *const cases[][8] = {
		{"report", fifo, NULL},          {"check", fifo, "--budget", "1GiB", NULL},
		{"diff", (char *)f, fifo, NULL}, {"merge", fifo, NULL},
		{"fit", fifo, (char *)f, NULL},
	};
	char expected[300];
	snprintf(expected, sizeof(expected),
		 ": %s: is a FIFO, not a report (give - to read standard input)\n", fifo);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct traced_run run;
		run_tool(&run, (char **)cases[i], NULL);
		cr_assert_eq(run.status, 2, "%s: %s", cases[i][0], run.err);
		char line[400];
		snprintf(line, sizeof(line), "vramtrace %s%s", cases[i][0], expected);
		cr_assert_str_eq(run.err, line);
		traced_run_free(&run);
	}
	struct traced_run run;
	run_tool(&run, (char *[]){"report", "/dev/zero", NULL}, NULL);
	cr_assert_str_eq(run.err, "vramtrace report: /dev/zero: is a character device, not a "
				  "report (give - to read standard input)\n");
	traced_run_free(&run);
	char command[1200];
	snprintf(command, sizeof(command), "%s check - --budget 1000 < %s | grep -qx 'fits: .*'",
		 build_path("VT_TEST_TOOL"), f);
	cr_assert_eq(system(command), 0, "standard input is read with -");
	/* a second - read it empty: "-:1:0: '[' or '{' expected near end of file" */
	run_tool(&run, (char *[]){"diff", "-", "-", NULL}, NULL);
	cr_assert_eq(run.status, 2);
	cr_assert_str_eq(run.err, "vramtrace diff: standard input (-) is given twice; it can be "
				  "read once (see vramtrace diff --help)\n");
	traced_run_free(&run);
	remove_tree(dir);
}

/* minimal.json with a failure of bytes (written as the tracer writes it:
 * digits, however large) into path. */
static void with_failure(const char *path, const char *bytes)
{
	json_t *report = json_load_file(fixture_path("minimal.json"), 0, NULL);
	cr_assert(report);
	json_t *failure = report_at(report, "devices/0/failures/0");
	json_object_set_new(failure, "bytes", json_integer(7777777));
	char *text = json_dumps(report, JSON_PRESERVE_ORDER);
	json_decref(report);
	char *at = strstr(text, "7777777");
	cr_assert(at);
	FILE *file = fopen(path, "w");
	fprintf(file, "%.*s%s%s", (int)(at - text), text, bytes, at + 7);
	fclose(file);
	free(text);
}

Test(cli, any_request_reads_back_exactly)
{
	char dir[] = "/tmp/vt-big.XXXXXX", path[64], again[64];
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/big.json", dir);
	snprintf(again, sizeof(again), "%s/again.json", dir);
	static const char *const sizes[][2] = {
		{"4611686018427387904", "4.00 EiB"},   /* 2^62 */
		{"9223372036854775807", "8.00 EiB"},   /* 2^63-1 */
		{"9223372036854775808", "8.00 EiB"},   /* 2^63 */
		{"18446744073709551612", "16.00 EiB"}, /* (size_t)-4 */
		{"18446744073709551615", "16.00 EiB"}, /* 2^64-1 */
	};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		with_failure(path, sizes[i][0]);
		struct traced_run run;
		run_tool(&run, (char *[]){"check", path, "--budget", "1000", NULL}, NULL);
		cr_assert_eq(run.status, 0, "%s: %s", sizes[i][0], run.err);
		traced_run_free(&run);
		run_tool(&run, (char *[]){"report", path, NULL}, NULL);
		char line[128];
		snprintf(line, sizeof(line), "    %s requested by cudaMalloc", sizes[i][1]);
		cr_assert(strstr(run.out, line), "%s: %s", sizes[i][0], run.out);
		traced_run_free(&run);
		/* re-written as JSON, the number survives (from 2^63 on it was
		 * written as a string of its digits) and reads back */
		char number[64];
		snprintf(number, sizeof(number), "\"bytes\": %s,", sizes[i][0]);
		run_tool(&run, (char *[]){"report", path, "--format", "json", NULL}, NULL);
		cr_assert(strstr(run.out, number), "%s is no longer a number", sizes[i][0]);
		traced_run_free(&run);
		run_tool(&run, (char *[]){"report", path, "--format", "json", "-o", again, NULL},
			 NULL);
		cr_assert_eq(run.status, 0, "%s", run.err);
		traced_run_free(&run);
		run_tool(&run, (char *[]){"merge", again, (char *)fixture_path("rank1.json"), NULL},
			 NULL);
		cr_assert_eq(run.status, 0, "%s: %s", sizes[i][0], run.err);
		cr_assert(strstr(run.out, number), "%s lost in the merge", sizes[i][0]);
		traced_run_free(&run);
	}
	with_failure(path, "18446744073709551616");
	char expected[300];
	snprintf(expected, sizeof(expected), "vramtrace check: %s: too big integer near '", path);
	struct traced_run run;
	run_tool(&run, (char *[]){"check", path, "--budget", "1000", NULL}, NULL);
	cr_assert_eq(run.status, 2);
	cr_assert(strstr(run.err, "too big integer"), "2^64 is no size_t: %s", run.err);
	traced_run_free(&run);
	remove_tree(dir);
}

Test(cli, budgets_to_2_64_print_exactly)
{
	const char *f = fixture_path("minimal.json");
	struct traced_run run;
	run_tool(&run, (char *[]){"check", (char *)f, "--budget", "9223372036854775808", NULL},
		 NULL);
	cr_assert_str_eq(run.out,
			 "fits: peak 1000 B (1000 bytes) of device 0 + headroom 0 B (0.00%) <= "
			 "budget 8.00 EiB (9223372036854775808 bytes); margin 8.00 EiB "
			 "(9223372036854774808 bytes)\n");
	traced_run_free(&run);
	run_tool(&run,
		 (char *[]){"check", (char *)f, "--budget", "18446744073709551615", "--headroom",
			    "99.99%", NULL},
		 NULL);
	cr_assert_str_eq(run.out, "fits: peak 1000 B (1000 bytes) of device 0 + headroom 16.00 EiB "
				  "(99.99%) <= budget 16.00 EiB (18446744073709551615 bytes); "
				  "margin 1.64 PiB (1844674407369955 bytes)\n");
	traced_run_free(&run);
	run_tool(&run, (char *[]){"check", (char *)f, "--budget", "80GB", NULL}, NULL);
	cr_assert_str_eq(run.err, "vramtrace check: --budget 80GB = 74.51 GiB (80000000000 "
				  "bytes)\n");
	traced_run_free(&run);
	refused((char *[]){"check", (char *)f, "--budget", "18446744073709551616", NULL},
		"vramtrace check: --budget '18446744073709551616' is too large: beyond 2^64-1 "
		"bytes (16 EiB)\n");
}

/* 16EiB, 2^64 bytes, was "not a size", as if it were misspelt: every
 * option taking a size says a size past what it takes is too large, and
 * where that is. */
Test(cli, a_size_past_the_limit_is_too_large)
{
	const char *f = fixture_path("minimal.json");
	refused((char *[]){"check", (char *)f, "--budget", "16EiB", NULL},
		"vramtrace check: --budget '16EiB' is too large: beyond 2^64-1 bytes (16 EiB)\n");
	refused((char *[]){"check", (char *)f, "--budget", "1e30", NULL},
		"vramtrace check: --budget '1e30' is too large: beyond 2^64-1 bytes (16 EiB)\n");
	refused((char *[]){"check", (char *)f, "--budget", " 20 eb", NULL},
		"vramtrace check: --budget ' 20 eb' is too large: beyond 2^64-1 bytes (16 EiB)\n");
	refused((char *[]){"report", (char *)f, "--format", "html", "--budget", "16EiB", NULL},
		"vramtrace report: --budget '16EiB' is too large: beyond 2^64-1 bytes (16 EiB)\n");
	refused((char *[]){"fit", (char *)f, "--budget", "16EiB", "--solve", "batch", NULL},
		"vramtrace fit: --budget '16EiB' is too large: beyond 2^63-1 bytes (8 EiB)\n");
	refused((char *[]){"fit", (char *)f, "--budget", "8EiB", "--solve", "batch", NULL},
		"vramtrace fit: --budget '8EiB' is too large: beyond 2^63-1 bytes (8 EiB)\n");
	/* a delta is a signed count: past 2^63-1 it was shown as -1 B */
	refused((char *[]){"diff", (char *)f, (char *)f, "--min-delta", "18446744073709551615",
			   NULL},
		"vramtrace diff: --min-delta '18446744073709551615' is too large: beyond 2^63-1 "
		"bytes (8 EiB)\n");
	refused((char *[]){"run", "--simulate", "16EiB", "--", "true", NULL},
		"vramtrace run: --simulate=16EiB: 16EiB is too large: beyond 2^64-1 bytes (16 "
		"EiB)\n");
	refused((char *[]){"run", "--simulate=80GiB,17EiB", "--", "true", NULL},
		"vramtrace run: --simulate=80GiB,17EiB: 17EiB is too large: beyond 2^64-1 bytes "
		"(16 EiB)\n");
	/* what is no size stays so: more digits than any size needs, a unit past EiB */
	refused((char *[]){"check", (char *)f, "--budget", "1.0000000000000000000001GiB", NULL},
		"vramtrace check: --budget '1.0000000000000000000001GiB' is not a size; write a "
		"number and a unit: 80GiB, 1.5 GiB, 81920MiB, 80G (GiB), 80GB (10^9 bytes) or "
		"bytes "
		"(1e9)\n");
	refused((char *[]){"check", (char *)f, "--budget", "16ZiB", NULL},
		"vramtrace check: --budget '16ZiB' is not a size; write a number and a unit: "
		"80GiB, "
		"1.5 GiB, 81920MiB, 80G (GiB), 80GB (10^9 bytes) or bytes (1e9)\n");
}

/* A report of four devices, each peaking at (and each kind holding)
 * 2^62 - 1 bytes: accepted values whose sums pass 2^63. */
static void four_devices(const char *path, int64_t each)
{
	json_t *report = json_load_file(fixture_path("minimal.json"), 0, NULL);
	json_t *devices = report_at(report, "devices");
	json_t *first = json_array_get(devices, 0);
	json_object_set_new(json_object_get(first, "peak"), "bytes", json_integer(each));
	json_t *kind = json_array_get(json_object_get(first, "kinds"), 0);
	json_object_set_new(kind, "at_peak_bytes", json_integer(each));
	json_object_set_new(kind, "peak_bytes", json_integer(each));
	json_object_set_new(first, "tags", json_array());
	json_object_set_new(first, "stacks", json_array());
	for (int d = 1; d < 4; d++) {
		json_t *copy = json_deep_copy(first);
		json_object_set_new(copy, "ordinal", json_integer(d));
		json_array_append_new(devices, copy);
	}
	cr_assert_eq(json_dump_file(report, path, 0), 0);
	json_decref(report);
}

Test(cli, diff_sums_are_checked)
{
	char dir[] = "/tmp/vt-diff.XXXXXX", a[64], b[64];
	cr_assert(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(b, sizeof(b), "%s/b.json", dir);
	four_devices(a, (1ll << 62) - 1);
	four_devices(b, 1000);
	refused((char *[]){"diff", a, b, NULL},
		"vramtrace diff: the kind row 'device' of A adds up to more than 2^63-1 bytes over "
		"the devices; compare one device at a time with --device N\n");
	struct traced_run run;
	run_tool(
		&run,
		(char *[]){"diff", a, b, "--device", "2", "--by", "kind", "--format", "json", NULL},
		NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *diff = json_loads(run.out, 0, NULL);
	cr_assert_eq(report_int(diff, "sections/kind/rows/0/delta_bytes"),
		     1000 - ((1ll << 62) - 1));
	json_decref(diff);
	traced_run_free(&run);
	/* devices are rows of their own: exact, whatever the kinds add up to */
	run_tool(&run, (char *[]){"diff", a, b, "--by", "device", "--format", "json", NULL}, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	diff = json_loads(run.out, 0, NULL);
	cr_assert_eq(json_array_size(report_at(diff, "sections/device/rows")), 4);
	cr_assert_eq(report_int(diff, "sections/device/rows/3/a_bytes"), (1ll << 62) - 1);
	json_decref(diff);
	traced_run_free(&run);
	remove_tree(dir);
}

/* Runs at batch 2, 4, 6, 8 whose peak is exactly 1 GiB + 64 MiB * batch. */
/* Four runs, batch 2 to 8, each with label key=value too when key is given. */
static void batch_runs_with(char *dir, char paths[4][64], const char *key, const char *value)
{
	for (int i = 0; i < 4; i++) {
		int batch = 2 + 2 * i;
		json_t *report = json_load_file(fixture_path("minimal.json"), 0, NULL);
		char text[8];
		snprintf(text, sizeof(text), "%d", batch);
		json_t *labels = json_pack("{s:s}", "batch", text);
		if (key)
			json_object_set_new(labels, key, json_string(value));
		json_object_set_new(report_at(report, "run"), "labels", labels);
		json_object_set_new(report_at(report, "run"), "pid", json_integer(100 + i));
		json_object_set_new(report_at(report, "devices/0/peak"), "bytes",
				    json_integer((1ll << 30) + (64ll << 20) * batch));
		json_object_set_new(report_at(report, "devices/0"), "tags", json_array());
		snprintf(paths[i], 64, "%s/b%d.json", dir, batch);
		cr_assert_eq(json_dump_file(report, paths[i], 0), 0);
		json_decref(report);
	}
}

static void batch_runs(char *dir, char paths[4][64])
{
	batch_runs_with(dir, paths, NULL, NULL);
}

Test(cli, fit_warns_widens_and_refuses)
{
	char dir[] = "/tmp/vt-fit.XXXXXX", paths[4][64];
	cr_assert(mkdtemp(dir));
	batch_runs(dir, paths);
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"fit", paths[0], paths[1], paths[2], paths[3], "--predict", "batch=32",
			    "--format", "json", NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(run.err, "vramtrace fit: warning: batch=32 is 24 above the measured 2 to "
				  "8 (400% of that range): the answer is extrapolated\n");
	json_t *fit = json_loads(run.out, 0, NULL);
	cr_assert_eq(report_int(fit, "predictions/0/peak_bytes"), 3ll << 30);
	/* exact inside 2..8, so the leave-one-out miss is 0; a quarter of the
	 * 1.5 GiB extrapolated past batch 8 is the uncertainty */
	cr_assert_eq(report_int(fit, "predictions/0/uncertainty_bytes"), 384ll << 20);
	json_decref(fit);
	traced_run_free(&run);

	run_tool(&run,
		 (char *[]){"fit", paths[0], paths[1], paths[2], paths[3], "--budget", "8GiB",
			    "--solve", "batch", NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(run.err, "vramtrace fit: warning: batch=112 is 104 above the measured 2 "
				  "to 8 (1733% of that range): the answer is extrapolated\n");
	cr_assert(strstr(run.out, "largest batch that fits 8.00 GiB with 0 B kept free: "
				  "batch=112, predicted peak 8.00 GiB +/- 1.62 GiB, extrapolated "
				  "beyond the measured range\n"),
		  "no '(with )', the uncertainty of a quarter of the 6.50 GiB past "
		  "batch 8: %s",
		  run.out);
	traced_run_free(&run);
	/* 2^63-1: batch 2^37-16 would peak at 2^63 itself, one byte past */
	run_tool(&run,
		 (char *[]){"fit", paths[0], paths[1], paths[2], paths[3], "--budget",
			    "9223372036854775807", "--solve", "batch", "--format", "json", NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	fit = json_loads(run.out, 0, NULL);
	cr_assert_eq(report_int(fit, "largest_fit/value"), 137438953455ll);
	cr_assert_eq(report_int(fit, "largest_fit/peak_bytes"), 9223372036787666944ll);
	json_decref(fit);
	traced_run_free(&run);

	refused((char *[]){"fit", paths[0], paths[1], paths[2], paths[3], "--predict", "batch=1e19",
			   NULL},
		"vramtrace fit: --predict batch: the predicted peak is beyond 2^63-1 bytes (8 "
		"EiB), far outside what the runs measured\n");
	refused((char *[]){"fit", paths[0], paths[1], paths[2], paths[3], "--budget",
			   "18446744073709551615", "--solve", "batch", NULL},
		"vramtrace fit: --budget '18446744073709551615' is too large: beyond 2^63-1 bytes "
		"(8 EiB)\n");
	char expected[400];
	snprintf(expected, sizeof(expected),
		 "vramtrace fit: %s and %s hold the same run (process 100 on node7): give each "
		 "rank's report once\n",
		 paths[0], paths[0]);
	refused((char *[]){"fit", paths[0], paths[0], paths[1], NULL}, expected);
	remove_tree(dir);
}

/* One prediction giving a label twice (batch=1,batch=2) was taken, the last
 * value winning without a word. */
Test(cli, fit_refuses_a_label_given_twice_in_one_prediction)
{
	char dir[] = "/tmp/vt-fit.XXXXXX", paths[4][64];
	cr_assert(mkdtemp(dir));
	batch_runs(dir, paths);
	refused((char *[]){"fit", paths[0], paths[1], paths[2], paths[3], "--predict",
			   "batch=1,batch=2", NULL},
		"vramtrace fit: --predict batch=1,batch=2 gives batch twice: one value each (see "
		"vramtrace fit --help)\n");
	refused((char *[]){"fit", paths[0], paths[1], paths[2], paths[3], "--predict", "batch=4",
			   "--predict", "batch=4,batchsize=3,batch=4", NULL},
		"vramtrace fit: --predict batch=4,batchsize=3,batch=4 gives batch twice: one value "
		"each (see vramtrace fit --help)\n");
	/* the same key in two predictions is two settings, as ever */
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"fit", paths[0], paths[1], paths[2], paths[3], "--predict", "batch=4",
			    "--predict", "batch=6", NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	traced_run_free(&run);
	remove_tree(dir);
}

/* strtod read a setting 0x10 as 16, and took inf, nan and leading spaces:
 * a setting's value is a decimal number, and any other text is a label
 * like dtype=bf16, which names a group, in the runs and in --predict. */
Test(cli, fit_reads_only_decimal_numbers_as_settings)
{
	static const char *const texts[] = {"0x10", "inf", "nan", " 8", "1e", "0x1p4", "+-1"};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char dir[] = "/tmp/vt-fit.XXXXXX", paths[4][64], name[32];
		cr_assert(mkdtemp(dir));
		batch_runs_with(dir, paths, "lr", texts[i]);
		struct traced_run run;
		run_tool(&run,
			 (char *[]){"fit", paths[0], paths[1], paths[2], paths[3], "--format",
				    "json", NULL},
			 NULL);
		cr_assert_eq(run.status, 0, "%s: %s", texts[i], run.err);
		json_t *fit = json_loads(run.out, 0, NULL);
		cr_assert(fit, "%s", run.out);
		snprintf(name, sizeof(name), "lr=%s", texts[i]);
		cr_assert_str_eq(report_string(fit, "groups/0/name"), name, "%s is no number",
				 texts[i]);
		cr_assert_null(json_object_get(report_at(fit, "groups/0/fixed"), "lr"));
		json_decref(fit);
		traced_run_free(&run);
		char expected[300];
		snprintf(expected, sizeof(expected),
			 "vramtrace fit: --predict batch=%s: not a decimal number (such as 32, 0.5 "
			 "or 1e3)\n",
			 texts[i]);
		char predict[32];
		snprintf(predict, sizeof(predict), "batch=%s", texts[i]);
		refused((char *[]){"fit", paths[0], paths[1], paths[2], paths[3], "--predict",
				   predict, NULL},
			expected);
		remove_tree(dir);
	}
	/* decimals, signs and exponents are numbers: held fixed, and predicted at */
	static const char *const numbers[][2] = {
		{"1e-4", "0.0001"}, {"-2.5", "-2.5"}, {"+3", "3"}, {".5", "0.5"}, {"7.", "7"}};
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		char dir[] = "/tmp/vt-fit.XXXXXX", paths[4][64];
		cr_assert(mkdtemp(dir));
		batch_runs_with(dir, paths, "lr", numbers[i][0]);
		struct traced_run run;
		run_tool(&run,
			 (char *[]){"fit", paths[0], paths[1], paths[2], paths[3], "--predict",
				    "batch=1e1", "--format", "json", NULL},
			 NULL);
		cr_assert_eq(run.status, 0, "%s: %s", numbers[i][0], run.err);
		json_t *fit = json_loads(run.out, 0, NULL);
		cr_assert(fit, "%s", run.out);
		cr_assert_str_eq(report_string(fit, "groups/0/name"), "");
		cr_assert_float_eq(json_number_value(report_at(fit, "groups/0/fixed/lr")),
				   strtod(numbers[i][1], NULL), 1e-12, "%s", numbers[i][0]);
		cr_assert_eq(report_int(fit, "predictions/0/peak_bytes"),
			     (1ll << 30) + (64ll << 20) * 10);
		json_decref(fit);
		traced_run_free(&run);
		remove_tree(dir);
	}
}

/* An HTML page is not drawn on a terminal; -o - still writes it out. */
Test(cli, html_is_not_for_the_terminal)
{
	if (access("/usr/bin/script", X_OK) != 0)
		cr_skip_test("no script(1) to make a terminal");
	char command[1200];
	snprintf(command, sizeof(command),
		 "script -qec '%s report %s --format html' /dev/null | grep -q 'an HTML page is "
		 "not for the terminal: give -o FILE.html (or -o - for standard output)'",
		 build_path("VT_TEST_TOOL"), fixture_path("minimal.json"));
	cr_assert_eq(system(command), 0, "refused on a terminal");
	snprintf(command, sizeof(command),
		 "script -qec '%s report %s --format html -o -' /dev/null | grep -q '<!DOCTYPE "
		 "html>'",
		 build_path("VT_TEST_TOOL"), fixture_path("minimal.json"));
	cr_assert_eq(system(command), 0, "written with -o -");
}

/* The pytest marker reads sizes in the grammar of every option. */
Test(cli, the_pytest_marker_reads_sizes_as_options_do)
{
	if (system("/usr/bin/python3 -c 'import pytest' 2>/dev/null") != 0)
		cr_skip_test("no pytest for /usr/bin/python3 (python3-pytest)");
	char command[1200];
	snprintf(command, sizeof(command),
		 "PYTHONPATH=%s /usr/bin/python3 -c 'from vramtrace.pytest import parse_size as "
		 "p\nprint([p(t) for t in (\"3.5GiB\", \"80gb\", \"4g\", \"80 GiB\", \"1e9\", "
		 "\"3.3G\", \"1.5 gb\", \"16383.999999999999999PiB\", 1000)])\nfor t in (\"1e20\", "
		 "\"1.000000000000000000001\", \"GiB\", \"-1\", \"80 GiBs\", \"\"):\n  try: p(t); "
		 "print(\"took\", t)\n  except "
		 "ValueError: pass' > /tmp/vt-sizes.%d",
		 build_path("VT_TEST_PYTHON_DIR"), (int)getpid());
	cr_assert_eq(system(command), 0);
	snprintf(command, sizeof(command), "/tmp/vt-sizes.%d", (int)getpid());
	FILE *file = fopen(command, "r");
	char line[400] = "";
	cr_assert(fgets(line, sizeof(line), file));
	cr_assert_str_eq(line, "[3758096384, 80000000000, 4294967296, 85899345920, 1000000000, "
			       "3543348019, 1500000000, 18446744073709551614, 1000]\n");
	cr_assert_null(fgets(line, sizeof(line), file), "a bad size was taken: %s", line);
	fclose(file);
	unlink(command);
}

/* Numbers past 2^63 wrapped on the way out: a budget of 2^64-1 reached the
 * page as -1, fit's llround made a budget of 2^63-1 "-8.00 EiB", and a
 * prediction below zero showed a peak of 0 B beside tags that hold bytes. */
Test(cli, big_and_negative_numbers_are_said_as_they_are)
{
	char dir[] = "/tmp/vt-big.XXXXXX", paths[4][64], page[128];
	cr_assert(mkdtemp(dir));
	batch_runs(dir, paths);
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"fit", paths[0], paths[1], paths[2], paths[3], "--budget",
			    "9223372036854775807", "--solve", "batch", NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.out, "largest batch that fits 8.00 EiB with 0 B kept free: "
				  "batch=137438953455, predicted peak 8.00 EiB +/- 2.00 EiB, "
				  "extrapolated beyond the measured range\n"),
		  "%s", run.out);
	traced_run_free(&run);
	refused((char *[]){"fit", paths[0], paths[1], paths[2], paths[3], "--predict", "batch=-100",
			   NULL},
		"vramtrace fit: --predict batch=-100: the prediction for the peak is below zero "
		"(-5.25 GiB), where the fitted model means nothing; the runs measured batch from 2 "
		"to 8\n");
	snprintf(page, sizeof(page), "%s/page.html", dir);
	run_tool(&run,
		 (char *[]){"report", (char *)fixture_path("minimal.json"), "--format", "html",
			    "--budget", "18446744073709551615", "-o", page, NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	traced_run_free(&run);
	char command[300];
	snprintf(command, sizeof(command), "grep -c '\"budget\":1.8446744073709552e19' %s", page);
	cr_assert_eq(system(command), 0, "the page's budget is not 2^64-1");
	remove_tree(dir);
}

/* Strings from a report reached the terminal raw in report's text (start,
 * ended_by, the device's name, the peak's call, a failure's call, tag and
 * error, the tags live at a failure, leak tags) and in diff (labels, file
 * names, keys): every one goes through the one safe printer now. */
Test(cli, no_escape_from_a_report_reaches_the_terminal)
{
	const char *evil = "x\x1b]0;PWNED\x07\x1b[2J";
	json_t *report = json_load_file(fixture_path("minimal.json"), 0, NULL);
	cr_assert(report);
	json_t *run = report_at(report, "run"), *device = report_at(report, "devices/0");
	json_t *failure = report_at(report, "devices/0/failures/0");
	json_object_set_new(run, "start", json_string(evil));
	json_object_set_new(run, "ended_by", json_string(evil));
	json_object_set_new(run, "rank", json_string(evil));
	json_object_set_new(run, "labels", json_pack("{s:s}", evil, evil));
	json_object_set_new(device, "name", json_string(evil));
	json_object_set_new(report_at(report, "devices/0/peak"), "api", json_string(evil));
	json_object_set_new(failure, "api", json_string(evil));
	json_object_set_new(failure, "tag", json_string(evil));
	json_object_set_new(failure, "error_name", json_string(evil));
	json_t *live = report_at(report, "devices/0/failures/0/snapshot/live_by_tag");
	json_object_set_new(live, "weights", json_integer(299));
	json_object_set_new(live, evil, json_integer(1));
	json_object_set_new(report_at(report, "devices/0/leaks/0"), "tag", json_string(evil));
	json_object_set_new(report_at(report, "devices/0/kinds/0"), "kind", json_string(evil));
	char path[] = "/tmp/vt-escape.XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(json_dumpfd(report, fd, 0), 0);
	close(fd);
	json_decref(report);
	static const char *const commands[][6] = {
		{"report", NULL},
		{"diff", "@", NULL},
		{"check", "--budget", "1", NULL},
	};
	for (size_t c = 0; c < 3; c++) {
		char *args[8] = {(char *)commands[c][0], path};
		for (size_t i = 1; commands[c][i]; i++)
			args[i + 1] = strcmp(commands[c][i], "@") == 0
					      ? (char *)fixture_path("minimal.json")
					      : (char *)commands[c][i];
		struct traced_run out;
		run_tool(&out, args, NULL);
		cr_assert(out.status == 0 || out.status == 1, "%s: %d %s", args[0], out.status,
			  out.err);
		cr_assert(!strchr(out.out, '\x1b') && !strchr(out.out, '\x07'),
			  "%s let an escape through: %s", args[0], out.out);
		if (c == 0)
			cr_assert(strstr(out.out, "ended by x\\x1b]0;PWNED\\x07\\x1b[2J\n"), "%s",
				  out.out);
		traced_run_free(&out);
	}
	unlink(path);
}

/* Diagnostics quoted what they were given as it was: a report's label key
 * holding ESC and a line break, a file name, an option's value. Each
 * reached the terminal that read the error, and a line break made one
 * error two lines. */
Test(cli, no_escape_reaches_the_terminal_through_an_error)
{
	json_t *report = json_load_file(fixture_path("minimal.json"), 0, NULL);
	cr_assert(report);
	json_object_set_new(report_at(report, "run/labels"), "a\x1b[2J\nb", json_integer(1));
	char dir[] = "/tmp/vt-escape-error.XXXXXX";
	cr_assert(mkdtemp(dir));
	char path[300], odd[300], expected[800];
	snprintf(path, sizeof(path), "%s/r.json", dir);
	cr_assert_eq(json_dump_file(report, path, 0), 0);
	json_decref(report);
	snprintf(expected, sizeof(expected),
		 "vramtrace report: %s: run.labels.a\\x1b[2J\\nb: expected a string\n", path);
	refused((char *[]){"report", path, NULL}, expected);
	snprintf(odd, sizeof(odd), "%s/e\x1b]0;PWNED\x07\xc2\x9b\n.json", dir);
	snprintf(expected, sizeof(expected),
		 "vramtrace check: %s/e\\x1b]0;PWNED\\x07\\xc2\\x9b\\n.json: cannot read: No such "
		 "file or directory\n",
		 dir);
	refused((char *[]){"check", odd, "--budget", "1", NULL}, expected);
	refused((char *[]){"check", (char *)fixture_path("minimal.json"), "--budget", "1\x1b[2J",
			   NULL},
		"vramtrace check: --budget '1\\x1b[2J' is not a size; write a number and a unit: "
		"80GiB, 1.5 GiB, 81920MiB, 80G (GiB), 80GB (10^9 bytes) or bytes (1e9)\n");
	unlink(path);
	rmdir(dir);
}

/* A line break in a file name was written as \n only in the errors of
 * loading a report: "has no device N" and a file or folder that cannot be
 * written split in two, one message read as
 * two. */
Test(cli, a_line_break_in_a_file_name_keeps_each_message_one_line)
{
	char dir[] = "/tmp/vt-break.XXXXXX", path[64], expected[400];
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a\nb.json", dir);
	json_t *report = json_load_file(fixture_path("minimal.json"), 0, NULL);
	cr_assert(report);
	cr_assert_eq(json_dump_file(report, path, 0), 0);
	json_decref(report);
	snprintf(expected, sizeof(expected),
		 "vramtrace report: %s/a\\nb.json has no device 7 (its devices: 0)\n", dir);
	refused((char *[]){"report", path, "--device", "7", NULL}, expected);
	char unwritable[64];
	snprintf(unwritable, sizeof(unwritable), "%s/no\ndir/out.txt", dir);
	snprintf(expected, sizeof(expected),
		 "vramtrace report: cannot write %s/no\\ndir/out.txt: No such file or directory\n",
		 dir);
	refused((char *[]){"report", (char *)fixture_path("minimal.json"), "-o", unwritable, NULL},
		expected);
	char output[64];
	snprintf(output, sizeof(output), "%s/no\ndir/r.json", dir);
	snprintf(expected, sizeof(expected),
		 "vramtrace run: no report can be written in %s/no\\ndir/: No such file or "
		 "directory\n",
		 dir);
	refused((char *[]){"run", "--simulate", "-o", output, "--", "true", NULL}, expected);
	remove_tree(dir);
}

/* Smaller ways the tool said less than the truth: a long --by cut at 127
 * characters, --budget ignored by the text, a merged trace giving two
 * devices one pid, run blaming CUDA for a report it could not write, and
 * metrics exiting 0 for a process it could not ask. */
Test(cli, options_are_taken_whole_or_refused)
{
	char by[400] = "";
	for (int i = 0; i < 40; i++)
		strcat(by, "tag,");
	strcat(by, "stack");
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"diff", (char *)fixture_path("minimal.json"),
			    (char *)fixture_path("minimal_b.json"), "--by", by, NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.out, "by stack (bytes at the peak)"), "%s", run.out);
	traced_run_free(&run);
	refused((char *[]){"report", (char *)fixture_path("minimal.json"), "--budget", "1GiB",
			   NULL},
		"vramtrace report: --budget draws a line on the html page only; for the peak "
		"against a budget, use vramtrace check FILE --budget SIZE (see vramtrace report "
		"--help)\n");
	refused((char *[]){"run", "--simulate", "-o", "/nonexistent/dir/r.json", "--", "true",
			   NULL},
		"vramtrace run: no report can be written in /nonexistent/dir/: No such file or "
		"directory\n");

	char runtime[] = "/tmp/vt-runtime.XXXXXX", env[64];
	cr_assert(mkdtemp(runtime));
	snprintf(env, sizeof(env), "XDG_RUNTIME_DIR=%s", runtime);
	struct run_options options = {.env = (const char *const[]){env, NULL}};
	run_tool_with(&run, (char *[]){"metrics", "999999", NULL}, &options);
	cr_assert_eq(run.status, 1);
	cr_assert_str_eq(run.err, "vramtrace metrics: process 999999 is not traced by vramtrace "
				  "(no control socket; it may have ended, or run with "
				  "VRAMTRACE_CONTROL=0)\n");
	traced_run_free(&run);
	rmdir(runtime);
}
