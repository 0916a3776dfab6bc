/* A report's names (tags, frames, ranks) as each format writes them: a
 * name holding a format's own separators or a terminal's controls neither
 * splits a line or a cell, nor reaches the terminal unescaped. */
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

/* minimal.json with its "weights" tag (row and stack) named tag. */
static json_t *with_tag(const char *tag)
{
	json_t *report = load_fixture("minimal.json");
	json_object_set_new(json_array_get(json_object_get(device0(report), "tags"), 0), "tag",
			    json_string(tag));
	json_object_set_new(json_array_get(json_object_get(device0(report), "stacks"), 0), "tag",
			    json_string(tag));
	return report;
}

/* A tag's newline split a folded line in two (a line without its bytes),
 * and its escapes, carriage return and C1 controls reached the terminal
 * raw; a merged report's rank was written with none of it escaped, ';'
 * included, which made it two frames. */
Test(names_in_formats, folded_names_keep_to_their_frame_and_line)
{
	char *path = written_report(with_tag("w;\x1b[2J\r\xc2\x9b\nx"));
	struct traced_run run;
	run_tool(&run, (char *[]){"report", path, "--format", "folded", NULL}, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(run.out, "w:\\x1b[2J\\x0d\\xc2\\x9b\\nx;main (serve.c:90);load_weights "
				  "(serve.c:41) 600\n"
				  "kv_cache;main (serve.c:95);kv::Cache::grow(unsigned long) "
				  "(cache.cc:12) 400\n");
	traced_run_free(&run);

	json_t *rank = load_fixture("rank0.json");
	json_object_set_new(json_object_get(rank, "run"), "rank", json_string("0;\x1b[2J\nx"));
	char *ranked = written_report(rank);
	char merged[64];
	snprintf(merged, sizeof(merged), "%s.merged", ranked);
	run_tool(&run, (char *[]){"merge", ranked, "-o", merged, NULL}, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	traced_run_free(&run);
	run_tool(&run, (char *[]){"report", merged, "--format", "folded", NULL}, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(count_of(run.out, "\n"), count_of(run.out, "rank 0:\\x1b[2J\\nx;"));
	cr_assert(strncmp(run.out, "rank 0:\\x1b[2J\\nx;weights;main (llm_serving.c:164) ", 51) ==
			  0,
		  "%s", run.out);
	traced_run_free(&run);
	unlink(merged);
	unlink(ranked);
	unlink(path);
	free(ranked);
	free(path);
}

/* A '|' in a name (a tag "a|b", C++'s operator|) ended the markdown cell
 * early, so each figure after it stood under the wrong column; a backtick
 * ended the code span. */
Test(names_in_formats, a_markdown_cell_holds_its_whole_name)
{
	char *path = written_report(with_tag("a|b`c"));
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"diff", path, (char *)fixture_path("minimal.json"), "--by", "tag",
			    "--format", "markdown", NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.out, "\n| ``a\\|b`c`` | 600 B | 0 B | -600 B | -100.0% | x0.00 | 600 "
				  "B | 0 B |\n"),
		  "%s", run.out);
	traced_run_free(&run);
	unlink(path);
	free(path);
}

/* A frame whose file came without a line was named "serve.c:0". */
Test(names_in_formats, a_frame_without_a_line_is_named_by_its_file)
{
	json_t *report = load_fixture("minimal.json");
	json_t *frame = json_array_get(
		json_object_get(json_array_get(json_object_get(report, "stack_frames"), 0),
				"frames"),
		1);
	cr_assert_str_eq(json_string_value(json_object_get(frame, "function")), "load_weights");
	json_object_set_new(frame, "line", json_null());
	char *path = written_report(report);
	struct traced_run run;
	run_tool(&run, (char *[]){"report", path, "--format", "folded", NULL}, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.out, "weights;main (serve.c:90);load_weights (serve.c) 600\n"), "%s",
		  run.out);
	traced_run_free(&run);
	unlink(path);
	free(path);
}
