/* Python code objects, as programs make, share and drop them: a frame is
 * named by its own code object even where a freed one had its address,
 * and the same code run by several threads is one frame of one stack. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

static const char *script(void)
{
	return python_program("python_code_reuse.py");
}

static int marked_line(const char *name)
{
	return marked_line_in(script(), name);
}

/* The one stack holding bytes at the peak; none other holds as many. */
static json_t *stack_holding(json_t *report, int64_t bytes)
{
	json_t *found = NULL, *stack;
	size_t i;
	json_array_foreach (report_at(report, "devices/0/stacks"), i, stack) {
		if (json_integer_value(json_object_get(stack, "at_peak_bytes")) != bytes)
			continue;
		cr_assert_null(found, "two stacks hold %lld bytes", (long long)bytes);
		found = stack;
	}
	cr_assert(found, "no stack holds %lld bytes", (long long)bytes);
	int64_t id = json_integer_value(json_object_get(found, "id"));
	json_array_foreach (report_at(report, "stack_frames"), i, stack)
		if (json_integer_value(json_object_get(stack, "id")) == id)
			return json_object_get(stack, "frames");
	cr_assert_fail("stack %lld has no frames", (long long)id);
	return NULL;
}

/* The Python frames of a stack, innermost first, as "name:line". */
static void python_frames(json_t *report, json_t *indices, char *out, size_t size)
{
	size_t i, used = 0;
	json_t *index;
	out[0] = '\0';
	json_array_foreach (indices, i, index) {
		json_t *frame = json_array_get(report_at(report, "frames"),
					       (size_t)json_integer_value(index));
		if (!json_is_true(json_object_get(frame, "python")))
			continue;
		used += (size_t)snprintf(
			out + used, size - used, "%s%s:%lld", used ? " " : "",
			json_string_value(json_object_get(frame, "function")),
			(long long)json_integer_value(json_object_get(frame, "line")));
		cr_assert_lt(used, size);
	}
}

static void run_script(struct traced_run *run, const char *python)
{
	if (access(python, X_OK) != 0)
		cr_skip_test("no %s here", python);
	struct run_options options = {.preload = true, .simulate = true};
	traced_run(run, &options, (char *[]){(char *)python, (char *)script(), NULL});
	cr_assert_eq(run->status, 0, "%s %s", run->out, run->err);
}

static void check_reused_addresses(const char *python)
{
	struct traced_run run;
	run_script(&run, python);
	if (!strstr(run.out, "1 address(es)"))
		cr_skip_test("the four code objects were not made at one address: %s", run.out);
	for (int step = 1; step <= 4; step++) {
		char want[128], got[1024];
		snprintf(want, sizeof(want), "step%d:%d <module>:%d", step, marked_line("template"),
			 marked_line("call_step"));
		python_frames(run.report, stack_holding(run.report, step * MiB), got, sizeof(got));
		cr_assert_str_eq(got, want);
	}
	traced_run_free(&run);
}

/* A freed code object's address, file name object and first line, reused
 * by one with another name: the frame has the new one's name. */
Test(python_code, a_reused_address_names_its_own_code)
{
	check_reused_addresses(build_path("VT_TEST_PYTHON"));
}

Test(python_code, a_reused_address_names_its_own_code_in_the_executable)
{
	check_reused_addresses("/usr/bin/python3");
}

/* Four threads allocate from one line: one stack holds all four, and
 * each Python frame is written once. */
Test(python_code, threads_running_the_same_code_share_its_frames)
{
	struct traced_run run;
	run_script(&run, build_path("VT_TEST_PYTHON"));
	char want[128], got[1024];
	snprintf(want, sizeof(want), "template:%d worker:%d Thread.run:", marked_line("template"),
		 marked_line("worker"));
	python_frames(run.report, stack_holding(run.report, 4 * 8 * MiB), got, sizeof(got));
	cr_assert(strncmp(got, want, strlen(want)) == 0, "%s", got);
	json_t *frames = report_at(run.report, "frames"), *a, *b;
	size_t i, j;
	json_array_foreach (frames, i, a) {
		if (!json_is_true(json_object_get(a, "python")))
			continue;
		json_array_foreach (frames, j, b)
			cr_assert(j <= i || !json_equal(a, b), "frame %zu is written again at %zu",
				  i, j);
	}
	traced_run_free(&run);
}

/* The long-named Python frame of the one stack holding bytes at the peak. */
static json_t *python_frame_holding(json_t *report, int64_t bytes, const char *function_start)
{
	size_t i;
	json_t *index;
	json_array_foreach (stack_holding(report, bytes), i, index) {
		json_t *frame = json_array_get(report_at(report, "frames"),
					       (size_t)json_integer_value(index));
		const char *name = json_string_value(json_object_get(frame, "function"));
		if (json_is_true(json_object_get(frame, "python")) && name && strlen(name) > 100 &&
		    strncmp(name, function_start, strlen(function_start)) == 0)
			return frame;
	}
	cr_assert_fail("no frame of %s... holds %lld bytes", function_start, (long long)bytes);
	return NULL;
}

/* A name and a file name are kept to their first 511 bytes, in whole
 * characters: 511 of "a", 255 of "é" (510 bytes), 127 of a four-byte
 * character (508 bytes); "xy" and 254 of "é" (510 bytes). */
Test(python_code, long_names_keep_as_many_whole_characters_as_fit)
{
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true};
	traced_run(&run, &options,
		   (char *[]){(char *)build_path("VT_TEST_PYTHON"),
			      (char *)python_program("python_long_names.py"), NULL});
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	const char *const starts[] = {"a", "\u00e9", "\U00020000"};
	const size_t kept[] = {511, 510, 508};
	for (int i = 0; i < 3; i++) {
		json_t *frame = python_frame_holding(run.report, (i + 1) * MiB, starts[i]);
		const char *name = json_string_value(json_object_get(frame, "function"));
		const char *file = json_string_value(json_object_get(frame, "file"));
		cr_assert_eq(strlen(name), kept[i], "%zu", strlen(name));
		cr_assert_eq(strspn(name, starts[i]), kept[i]);
		cr_assert_eq(strlen(file), 510, "%zu", strlen(file));
		cr_assert_eq(strncmp(file, "xy", 2), 0);
		cr_assert_eq(strspn(file + 2, "\u00e9"), 508);
		cr_assert_eq(json_integer_value(json_object_get(frame, "line")), 2 + 3 * i);
	}
	traced_run_free(&run);
}
