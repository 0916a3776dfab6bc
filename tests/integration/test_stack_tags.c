/* One call site allocating under two tags is two stacks, one per tag, in
 * the report, the text, the folded output and the groups (stack_tags.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

static void run_stack_tags(struct traced_run *run, const char *mode, const char *const *env)
{
	struct run_options options = {.preload = true, .simulate = true, .env = env};
	traced_run(run, &options,
		   (char *[]){(char *)program_path("stack_tags"), (char *)mode, NULL});
	cr_assert_eq(run->status, 0, "%s", run->err);
	cr_assert(run->report, "%s", run->err);
}

/* The device's stack listed with tag; fails the test when there is none. */
static json_t *stack_with_tag(json_t *report, const char *tag)
{
	json_t *stacks = report_at(report, "devices/0/stacks"), *stack;
	size_t i;
	json_array_foreach (stacks, i, stack) {
		if (strcmp(json_string_value(json_object_get(stack, "tag")), tag) == 0)
			return stack;
	}
	cr_assert_fail("no stack with tag %s", tag);
	return NULL;
}

/* The stack_frames entry of the stack id. */
static json_t *frames_of(json_t *report, json_int_t id)
{
	json_t *entries = report_at(report, "stack_frames"), *entry;
	size_t i;
	json_array_foreach (entries, i, entry) {
		if (json_integer_value(json_object_get(entry, "id")) == id)
			return entry;
	}
	cr_assert_fail("no stack_frames entry for stack %lld", (long long)id);
	return NULL;
}

static json_int_t integer(json_t *object, const char *key)
{
	json_t *value = json_object_get(object, key);
	cr_assert(json_is_integer(value), "no %s", key);
	return json_integer_value(value);
}

/* Two stacks with the helper's frames, one per tag, each with its own
 * bytes at the peak and a group of its own. */
static void two_stacks(json_t *report, const char *tag_a, int64_t a_bytes, const char *tag_b,
		       int64_t b_bytes)
{
	json_t *a = stack_with_tag(report, tag_a), *b = stack_with_tag(report, tag_b);
	cr_assert_eq(integer(a, "at_peak_bytes"), a_bytes, "%s", tag_a);
	cr_assert_eq(integer(b, "at_peak_bytes"), b_bytes, "%s", tag_b);
	json_int_t id_a = integer(a, "id"), id_b = integer(b, "id");
	cr_assert_neq(id_a, id_b);
	json_t *frames_a = frames_of(report, id_a), *frames_b = frames_of(report, id_b);
	cr_assert(json_equal(json_object_get(frames_a, "frames"),
			     json_object_get(frames_b, "frames")),
		  "the same frames");
	cr_assert_eq(integer(frames_a, "group"), id_a, "its own group");
	cr_assert_eq(integer(frames_b, "group"), id_b, "its own group");
}

/* The folded output's line under tag through the helper: its bytes, or -1
 * when there is none. */
static long long folded_bytes(const char *folded, const char *tag)
{
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "%s;", tag);
	long long found = -1;
	for (const char *line = folded; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *end = strchr(line, '\n');
		size_t length = end ? (size_t)(end - line) : strlen(line);
		char copy[1024];
		snprintf(copy, sizeof(copy), "%.*s", (int)length, line);
		if (strncmp(copy, prefix, strlen(prefix)) != 0 || !strstr(copy, "allocate_buffer"))
			continue;
		cr_assert_eq(found, -1, "one line under %s: %s", tag, folded);
		found = atoll(strrchr(copy, ' ') + 1);
	}
	return found;
}

static char *tool_report(const struct traced_run *traced, const char *format)
{
	char path[300];
	snprintf(path, sizeof(path), "%s/report.json", traced->dir);
	struct traced_run run;
	run_tool(&run, (char *[]){"report", path, "--format", (char *)format, NULL}, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	char *out = strdup(run.out);
	traced_run_free(&run);
	return out;
}

static void shown_under_their_tags(const struct traced_run *run)
{
	char *folded = tool_report(run, "folded");
	cr_assert_eq(folded_bytes(folded, "a"), 8 * MiB, "%s", folded);
	cr_assert_eq(folded_bytes(folded, "b"), 24 * MiB, "%s", folded);
	free(folded);
	char *text = tool_report(run, "text");
	cr_assert(strstr(text, "#1 24.00 MiB 75.0% [b], 1 allocation"), "%s", text);
	cr_assert(strstr(text, "#2 8.00 MiB 25.0% [a], 1 allocation"), "%s", text);
	cr_assert(strstr(text, "8.00 MiB in 1 allocation [a], stack #2 above"), "%s", text);
	free(text);
	cr_assert(strstr(run->err, "#1 24.00 MiB 75.0% [b]"), "%s", run->err);
	cr_assert(strstr(run->err, "#2 8.00 MiB 25.0% [a]"), "%s", run->err);
}

Test(stack_tags, one_call_site_under_two_api_tags_is_two_stacks)
{
	struct traced_run run;
	run_stack_tags(&run, "api", (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL});
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 32 * MiB);
	two_stacks(run.report, "a", 8 * MiB, "b", 24 * MiB);
	shown_under_their_tags(&run);
	traced_run_free(&run);
}

Test(stack_tags, one_call_site_in_two_nvtx_ranges_is_two_stacks)
{
	char injection[600];
	snprintf(injection, sizeof(injection), "NVTX_INJECTION64_PATH=%s",
		 build_path("VT_TEST_LIBRARY"));
	const char *env[] = {injection, "VRAMTRACE_SUMMARY=1", NULL};
	struct traced_run run;
	run_stack_tags(&run, "nvtx", env);
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 32 * MiB);
	two_stacks(run.report, "a", 8 * MiB, "b", 24 * MiB);
	shown_under_their_tags(&run);
	traced_run_free(&run);
}

/* A retag moves the bytes to the same frames under the new tag: the
 * stacks' tags agree with the tags' figures. */
Test(stack_tags, a_retag_moves_the_bytes_to_the_stack_with_the_new_tag)
{
	struct traced_run run;
	run_stack_tags(&run, "retag", NULL);
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 33 * MiB);
	cr_assert_eq(integer(report_tag(run.report, "devices/0", "c"), "at_peak_bytes"), 8 * MiB);
	two_stacks(run.report, "c", 8 * MiB, "b", 24 * MiB);
	json_t *c = stack_with_tag(run.report, "c");
	cr_assert_eq(integer(c, "allocations"), 0, "re-tagged, not allocated there");
	char *folded = tool_report(&run, "folded");
	cr_assert_eq(folded_bytes(folded, "c"), 8 * MiB, "%s", folded);
	cr_assert_eq(folded_bytes(folded, "b"), 24 * MiB, "%s", folded);
	cr_assert_eq(folded_bytes(folded, "a"), -1, "%s", folded);
	free(folded);
	traced_run_free(&run);
}

Test(stack_tags, without_stacks_the_tags_still_split)
{
	const char *env[] = {"VRAMTRACE_STACK_DEPTH=0", NULL};
	struct traced_run run;
	run_stack_tags(&run, "api", env);
	cr_assert_eq(json_array_size(report_at(run.report, "devices/0/stacks")), 0);
	cr_assert_eq(integer(report_tag(run.report, "devices/0", "a"), "at_peak_bytes"), 8 * MiB);
	cr_assert_eq(integer(report_tag(run.report, "devices/0", "b"), "at_peak_bytes"), 24 * MiB);
	traced_run_free(&run);
}
