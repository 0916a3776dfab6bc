/* What the tool's reader refuses, and what it still takes: reports whose
 * figures cannot all be true (parts above their whole, a name listed
 * twice, figures no writer writes), tags longer than the library makes,
 * merged reports whose summary disagrees with their ranks, and documents
 * shaped to exhaust memory. Each refusal is exit 2 and one exact line. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static json_t *device0(json_t *report)
{
	return json_array_get(json_object_get(report, "devices"), 0);
}

/* Every command that reads the report refuses it with exactly
 * "vramtrace CMD: PATH: reason" and writes nothing. */
static void refused_everywhere(json_t *document, const char *reason)
{
	char *path = written_report(document);
	static const char *const commands[] = {"report", "check", "merge"};
	for (size_t c = 0; c < 3; c++) {
		char *args[8] = {(char *)commands[c], path, NULL};
		if (c == 1)
			args[2] = "--budget", args[3] = "1GiB";
		struct traced_run run;
		run_tool(&run, args, NULL);
		char expected[2048];
		snprintf(expected, sizeof(expected), "vramtrace %s: %s: %s\n", commands[c], path,
			 reason);
		cr_assert_eq(run.status, 2, "%s: %d %s", commands[c], run.status, run.err);
		cr_assert_str_eq(run.err, expected);
		cr_assert_str_eq(run.out, "");
		traced_run_free(&run);
	}
	unlink(path);
	free(path);
}

static void accepted(json_t *document, const char *format)
{
	char *path = written_report(document);
	char out[600];
	snprintf(out, sizeof(out), "%s.%s", path, format);
	struct traced_run run;
	run_tool(&run, (char *[]){"report", path, "--format", (char *)format, "-o", out, NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s: %d %s", format, run.status, run.err);
	cr_assert_str_eq(run.err, "");
	traced_run_free(&run);
	unlink(out);
	unlink(path);
	free(path);
}

static char *repeated(char c, size_t n)
{
	char *text = malloc(n + 1);
	memset(text, c, n);
	text[n] = '\0';
	return text;
}

/* A tag of 8192 bytes crashed the text, folded and html renderings (a key
 * buffer's size went below zero); no tag the library writes is longer than
 * 765 bytes (255, each byte that is not UTF-8 written as U+FFFD). */
Test(report_checks, a_tag_longer_than_the_library_writes_is_refused)
{
	char *tag = repeated('T', 8192);
	json_t *report = load_fixture("minimal.json");
	json_object_set_new(json_array_get(json_object_get(device0(report), "tags"), 0), "tag",
			    json_string(tag));
	json_object_set_new(json_array_get(json_object_get(device0(report), "stacks"), 0), "tag",
			    json_string(tag));
	refused_everywhere(report, ".devices[0].tags[0].tag: a tag of 8192 bytes; no tag is "
				   "longer than 255 bytes (765 as written)");
	report = load_fixture("minimal.json");
	json_t *rows = json_object_get(json_object_get(device0(report), "timeline"), "rows");
	json_object_set_new(json_object_get(json_array_get(rows, 1), "by_tag"), tag,
			    json_integer(1));
	refused_everywhere(report, ".devices[0].timeline.rows[1].by_tag key: a tag of 8192 "
				   "bytes; no tag is longer than 255 bytes (765 as written)");
	free(tag);
}

/* The longest tag the library can write renders in every format, and two
 * stacks at one place with it are one row. */
Test(report_checks, the_longest_tag_written_renders_everywhere)
{
	char *tag = repeated('T', 765);
	static const char *const formats[] = {"text", "json", "folded", "trace", "html"};
	for (size_t f = 0; f < 5; f++) {
		json_t *report = load_fixture("minimal.json");
		json_t *device = device0(report);
		json_object_set_new(json_array_get(json_object_get(device, "tags"), 0), "tag",
				    json_string(tag));
		json_object_set_new(json_array_get(json_object_get(device, "stacks"), 0), "tag",
				    json_string(tag));
		accepted(report, formats[f]);
	}
	free(tag);
}

/* 250 MB of "[]," took 11.9 GB to read and 50 MB of "{}," 4 GB, before any
 * check: a document denser in arrays and objects than any report (one per
 * 16 bytes) is refused before it is parsed. */
Test(report_checks, a_document_of_empty_containers_is_refused_before_parsing)
{
	char path[] = "/tmp/vt-dense.XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	FILE *file = fdopen(fd, "w");
	fputs("{\"schema\": \"vramtrace/1\", \"x\": [", file);
	for (int i = 0; i < 1 << 21; i++)
		fputs("[],", file);
	fputs("[]]}", file);
	fclose(file);
	struct traced_run run;
	run_tool(&run, (char *[]){"report", path, NULL}, NULL);
	char expected[600];
	snprintf(expected, sizeof(expected),
		 "vramtrace report: %s: not a vramtrace report: 2097155 arrays and objects in "
		 "6291492 bytes, more than one per 16 bytes, which no report holds (refused "
		 "before reading it into memory)\n",
		 path);
	cr_assert_eq(run.status, 2);
	cr_assert_str_eq(run.err, expected);
	traced_run_free(&run);
	unlink(path);
}

/* The same run given twice was merged (counted twice) when its host name
 * was long: the identity was cut, and a cut one skipped the check. */
Test(report_checks, merge_refuses_a_copy_whatever_the_host_name)
{
	char *host = repeated('h', 600);
	json_t *report = load_fixture("minimal.json");
	json_object_set_new(json_object_get(report, "run"), "host", json_string(host));
	char *a = written_report(json_deep_copy(report));
	char *b = written_report(report);
	struct traced_run run;
	run_tool(&run, (char *[]){"merge", a, b, NULL}, NULL);
	char expected[2048];
	snprintf(expected, sizeof(expected),
		 "vramtrace merge: %s and %s hold the same run (process 4242 on %s): give each "
		 "rank's report once\n",
		 a, b, host);
	cr_assert_eq(run.status, 2);
	cr_assert_str_eq(run.err, expected);
	cr_assert_str_eq(run.out, "");
	traced_run_free(&run);
	unlink(a);
	unlink(b);
	free(a);
	free(b);
	free(host);
}

static void set(json_t *object, const char *key, json_int_t value)
{
	cr_assert_eq(json_object_set_new(object, key, json_integer(value)), 0);
}

static json_t *entry(json_t *owner, const char *list, size_t i)
{
	return json_array_get(json_object_get(owner, list), i);
}

static json_t *timeline_row(json_t *report, size_t i)
{
	return json_array_get(json_object_get(json_object_get(device0(report), "timeline"), "rows"),
			      i);
}

/* Figures that cannot all be true were drawn as if they were: tags at the
 * peak above the peak (a share of 100000000000000.0%), a tag or kind twice
 * (diff invented +100%), a row's tags above the row, a row's lowest above
 * its highest, fewer stacks at the peak than listed ("9,223,372,036,854,
 * 775,806 more stacks"), and figures no writer writes ("process
 * -9223372036854775808", "-8.00 EiB"). */
Test(report_checks, figures_that_cannot_all_be_true_are_refused)
{
	json_t *report = load_fixture("minimal.json");
	set(entry(device0(report), "tags", 0), "at_peak_bytes", 600);
	set(entry(device0(report), "tags", 1), "at_peak_bytes", 400);
	set(entry(device0(report), "tags", 1), "peak_bytes", 1000);
	set(entry(device0(report), "tags", 1), "at_peak_bytes", 1000);
	refused_everywhere(report, ".devices[0].tags: at the peak they hold 1600 bytes, more "
				   "than the peak's 1000");

	report = load_fixture("minimal.json");
	json_array_append_new(json_object_get(device0(report), "tags"),
			      json_deep_copy(entry(device0(report), "tags", 1)));
	refused_everywhere(report, ".devices[0].tags[2]: tag \"kv_cache\" is listed twice");

	report = load_fixture("minimal.json");
	json_array_append_new(json_object_get(device0(report), "kinds"),
			      json_deep_copy(entry(device0(report), "kinds", 0)));
	refused_everywhere(report, ".devices[0].kinds[1]: kind \"device\" is listed twice");

	report = load_fixture("minimal.json");
	set(json_object_get(timeline_row(report, 2), "by_tag"), "weights", 6000);
	refused_everywhere(report, ".devices[0].timeline.rows[2]: by_tag holds 6400 bytes, more "
				   "than the row's 1000");

	report = load_fixture("minimal.json");
	set(timeline_row(report, 1), "min_bytes", 900);
	set(timeline_row(report, 1), "max_bytes", 700);
	refused_everywhere(report,
			   ".devices[0].timeline.rows[1]: min_bytes 900 is above max_bytes 700");

	report = load_fixture("minimal.json");
	set(device0(report), "stacks_at_peak", 1);
	set(device0(report), "stacks_at_peak_bytes", 1000);
	refused_everywhere(report, ".devices[0].stacks_at_peak: 1 is fewer than the 2 stacks "
				   "listed with bytes at the peak");

	report = load_fixture("minimal.json");
	set(json_object_get(report, "run"), "pid", INT64_MIN);
	refused_everywhere(report, "run.pid: expected a non-negative integer below 2^63");

	report = load_fixture("minimal.json");
	set(device0(report), "stacks_at_peak_bytes", INT64_MAX);
	refused_everywhere(report, ".devices[0].stacks_at_peak_bytes: 9223372036854775807 bytes, "
				   "more than the peak's 1000");
}

/* Parts above their whole that were still taken: kinds at the peak
 * adding up to twice it (the text showed two kinds at 100.0%), a failure's
 * largest stacks holding a million times what was live ("#1 held 953.67
 * MiB" of 700 B), a row's stacks above the row; and rows out of the order
 * of time, drawn as if time ran backwards. A kind only shown (memory of
 * another process opened here) may be live at the peak beyond it. */
Test(report_checks, parts_above_their_whole_and_rows_out_of_order_are_refused)
{
	json_t *report = load_fixture("minimal.json");
	json_t *managed = json_deep_copy(entry(device0(report), "kinds", 0));
	json_object_set_new(managed, "kind", json_string("managed"));
	json_array_append_new(json_object_get(device0(report), "kinds"), managed);
	refused_everywhere(report, ".devices[0].kinds: at the peak they hold 2000 bytes, more "
				   "than the peak's 1000");

	report = load_fixture("minimal.json");
	json_t *imported = json_deep_copy(entry(device0(report), "kinds", 0));
	json_object_set_new(imported, "kind", json_string("ipc_import"));
	json_array_append_new(json_object_get(device0(report), "kinds"), imported);
	accepted(report, "text");

	report = load_fixture("minimal.json");
	json_t *failure = entry(device0(report), "failures", 0);
	set(json_array_get(json_object_get(json_object_get(failure, "snapshot"), "top_stacks"), 0),
	    "bytes", 1000000000);
	refused_everywhere(report, ".devices[0].failures[0].snapshot.top_stacks: they hold "
				   "1000000300 bytes, more than live_bytes 700");

	report = load_fixture("minimal.json");
	json_object_set_new(timeline_row(report, 1), "top_stacks",
			    json_pack("[{s:i, s:i}]", "stack", 1, "bytes", 500));
	set(timeline_row(report, 1), "other_stacks_bytes", 300);
	refused_everywhere(report, ".devices[0].timeline.rows[1]: top_stacks and "
				   "other_stacks_bytes hold 800 bytes, more than the row's 700");

	report = load_fixture("minimal.json");
	set(timeline_row(report, 2), "t_ns", 100);
	refused_everywhere(report, ".devices[0].timeline.rows[2].t_ns: 100 is before the row "
				   "above it (250000000)");
}

static json_t *load_merged(void)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/../golden/merged.json", build_path("VT_TEST_FIXTURES"));
	json_t *merged = json_load_file(path, 0, NULL);
	cr_assert(merged);
	return merged;
}

/* A merged report's summary was taken on trust, and a rank listed twice
 * or of another schema was read. */
Test(report_checks, a_merged_summary_must_agree_with_its_ranks)
{
	json_t *merged = load_merged();
	json_t *ranks = json_object_get(merged, "ranks");
	json_array_append_new(ranks, json_deep_copy(json_array_get(ranks, 0)));
	refused_everywhere(merged, ".ranks[4]: the same run as .ranks[0] (process 32338), counted "
				   "twice");

	merged = load_merged();
	set(json_object_get(merged, "peak"), "max_bytes", 1);
	refused_everywhere(merged, "peak.max_bytes: 1, but the ranks' highest peak is 22321499136");

	merged = load_merged();
	set(entry(merged, "tags", 0), "at_peak_sum_bytes", 1);
	refused_everywhere(merged, ".tags[0]: tag \"weights\" holds 1 summed and 14000000000 at "
				   "most on one rank, but the ranks give 56000000000 and "
				   "14000000000");

	merged = load_merged();
	json_object_set_new(
		json_object_get(json_array_get(json_object_get(merged, "ranks"), 1), "report"),
		"schema", json_string("vramtrace/99"));
	refused_everywhere(merged, ".ranks[1].report.schema: a rank's report must be vramtrace/1");
}

/* Two processes that both said rank 0 were merged, and diff and check
 * then added their devices up as one rank's: a "rank 0 device 0" peak of
 * 2000 bytes where each process peaked at 1000. */
Test(report_checks, two_processes_of_one_rank_are_not_added_up)
{
	json_t *report = load_fixture("minimal.json");
	json_object_set_new(json_object_get(report, "run"), "rank", json_string("0"));
	char *a = written_report(json_deep_copy(report));
	set(json_object_get(report, "run"), "pid", 4243);
	char *b = written_report(report);
	struct traced_run run;
	run_tool(&run, (char *[]){"merge", a, b, NULL}, NULL);
	char expected[2048];
	snprintf(expected, sizeof(expected),
		 "vramtrace merge: %s and %s both hold rank 0: its rows would add up two "
		 "processes as one (give each rank once)\n",
		 a, b);
	cr_assert_eq(run.status, 2);
	cr_assert_str_eq(run.err, expected);
	cr_assert_str_eq(run.out, "");
	traced_run_free(&run);
	unlink(a);
	unlink(b);
	free(a);
	free(b);

	json_t *merged = load_merged();
	json_t *ranks = json_object_get(merged, "ranks");
	json_t *again = json_deep_copy(json_array_get(ranks, 0));
	set(json_object_get(json_object_get(again, "report"), "run"), "pid", 1);
	json_array_append_new(ranks, again);
	refused_everywhere(merged, ".ranks[4]: rank \"0\" again, as .ranks[0]");
}

/* Figures above their whole that were still shown: a tag's or a stack's
 * own peak above the device's ("peak 1000 B" over "own peak 4.88 KiB"),
 * leaks above what was live at exit (a row of 4.88 KiB under "live at
 * exit: 300 B"); and a stack given two lists of frames, of which each
 * reader showed the one it found. */
Test(report_checks, own_peaks_leaks_and_frames_that_contradict_are_refused)
{
	json_t *report = load_fixture("minimal.json");
	set(entry(device0(report), "tags", 0), "peak_bytes", 5000);
	refused_everywhere(report, ".devices[0].tags[0]: peak_bytes 5000 bytes, more than the "
				   "peak's 1000");

	report = load_fixture("minimal.json");
	set(entry(device0(report), "stacks", 1), "peak_bytes", 1001);
	refused_everywhere(report, ".devices[0].stacks[1]: peak_bytes 1001 bytes, more than the "
				   "peak's 1000");

	report = load_fixture("minimal.json");
	set(entry(device0(report), "leaks", 0), "bytes", 5000);
	refused_everywhere(report, ".devices[0].leaks: they hold 5000 bytes, more than "
				   "live_at_exit_bytes 300");

	report = load_fixture("minimal.json");
	set(entry(device0(report), "leaks", 0), "count", 2);
	refused_everywhere(report, ".devices[0].leaks: they hold 2 allocations, more than "
				   "live_at_exit_allocations 1");

	report = load_fixture("minimal.json");
	json_t *frames = json_object_get(report, "stack_frames");
	json_t *again = json_deep_copy(json_array_get(frames, 0));
	json_array_remove(json_object_get(again, "frames"), 1);
	json_array_append_new(frames, again);
	refused_everywhere(report, ".stack_frames: stack 1 is listed twice");
}

/* text written to a new file in /tmp, its path returned. */
static char *written_text(const char *text)
{
	char *path = strdup("/tmp/vt-check.XXXXXX.json");
	int fd = mkstemps(path, 5);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* A report saved with a byte order mark was refused with the mark,
 * invisible, as the token "near" the error; a \u0000 in a string was
 * refused naming jansson's flag (JSON_ALLOW_NUL). */
Test(report_checks, a_byte_order_mark_is_passed_over_and_nul_said_plainly)
{
	json_t *report = load_fixture("minimal.json");
	char *text = json_dumps(report, JSON_COMPACT), *marked;
	cr_assert(asprintf(&marked, "\xef\xbb\xbf%s", text) > 0);
	char *path = written_text(marked);
	struct traced_run run;
	run_tool(&run, (char *[]){"check", path, "--budget", "1000", NULL}, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(run.err, "");
	traced_run_free(&run);
	unlink(path);
	free(path);
	char *nul = strstr(text, "node7");
	cr_assert(nul);
	memcpy(nul, "\\u0000", 6);
	path = written_text(text);
	run_tool(&run, (char *[]){"report", path, NULL}, NULL);
	char expected[300];
	snprintf(expected, sizeof(expected),
		 "vramtrace report: %s:1:%d: a string holds \\u0000, which no report does\n", path,
		 (int)(nul - text) + 8);
	cr_assert_eq(run.status, 2);
	cr_assert_str_eq(run.err, expected);
	traced_run_free(&run);
	unlink(path);
	free(path);
	free(marked);
	free(text);
	json_decref(report);
}
