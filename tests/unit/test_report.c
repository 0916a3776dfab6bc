/* The report writes a snapshot of the core with nothing of the interposer
 * linked: exact figures in the JSON and in the summary. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tags.h"
#include "report/cuda_errors.h"
#include "report/report.h"
#include "report/text_lines.h"

#define MiB (1ull << 20)

static uint64_t now = 1000;

static uint64_t fake_clock(void)
{
	return now += 1000;
}

static void record(struct vt_tracker *tracker, enum vt_op op, uint64_t address, uint64_t bytes)
{
	struct vt_event event = {
		.op = op,
		.kind = VT_KIND_DEVICE,
		.device = 0,
		.address = address,
		.bytes = bytes,
		.api = "cudaMalloc",
		.driver_api = "cuMemAlloc_v2",
	};
	cr_assert_eq(vt_tracker_record(tracker, &event) & VT_RECORDED_UNKEPT, 0);
}

Test(report, a_snapshot_written_without_the_interposer)
{
	static struct vt_tracker tracker;
	struct vt_tracker_options options = {
		.oom_snapshots = 1, .snapshot_top = 4, .clock = fake_clock};
	vt_tracker_init(&tracker, &options);
	record(&tracker, VT_OP_ALLOC, 0x1000, 64 * MiB);
	record(&tracker, VT_OP_ALLOC, 0x9000000, 32 * MiB);
	record(&tracker, VT_OP_FREE, 0x1000, 0);
	static struct vt_snapshot snapshot;
	vt_tracker_snapshot(&tracker, &snapshot);
	struct vt_run run;
	vt_run_start(&run, "batch=8", false);
	vt_run_end(&run, "exit 0");
	static struct vt_device_info devices[VT_MAX_DEVICES];
	devices[0] = (struct vt_device_info){.known = true, .name = "a GPU", .capacity = 1u << 30};
	struct vt_report report = {.run = &run,
				   .snapshot = &snapshot,
				   .devices = devices,
				   .top = 20,
				   .recording = VT_SOURCE_HOOKS};
	FILE *file = tmpfile();
	cr_assert(vt_report_write_json(&report, fileno(file)));
	rewind(file);
	json_t *root = json_loadf(file, 0, NULL);
	fclose(file);
	cr_assert(root, "the report is JSON");
	json_t *device = json_array_get(json_object_get(root, "devices"), 0);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(device, "peak"), "bytes")),
		     96 * MiB);
	cr_assert_eq(json_integer_value(json_object_get(device, "live_at_exit_bytes")), 32 * MiB);
	cr_assert_str_eq(json_string_value(json_object_get(device, "name")), "a GPU");
	cr_assert_str_eq(json_string_value(json_object_get(
				 json_object_get(json_object_get(root, "run"), "labels"), "batch")),
			 "8");
	json_decref(root);
	char *text = NULL;
	size_t size = 0;
	FILE *summary = open_memstream(&text, &size);
	vt_report_write_summary(&report, summary);
	fclose(summary);
	cr_assert(strstr(text, "vramtrace: device 0: a GPU, 1.00 GiB\n"
			       "vramtrace:   peak 96.00 MiB (100663296 bytes)"),
		  "%s", text);
	free(text);
	free(run.command);
	vt_snapshot_free(&snapshot);
	vt_tracker_destroy(&tracker);
}

/* The tags past the summary's top are one line, its count in words that
 * agree with it: "and 1 more tag". */
Test(report, tags_past_the_top_are_counted_in_one_line)
{
	static struct vt_tracker tracker;
	struct vt_tracker_options options = {.clock = fake_clock};
	vt_tracker_init(&tracker, &options);
	const char *names[] = {"weights", "kv_cache", "activations"};
	for (unsigned i = 0; i < 3; i++) {
		struct vt_event event = {.op = VT_OP_ALLOC,
					 .kind = VT_KIND_DEVICE,
					 .address = 0x100000 * (i + 1),
					 .bytes = (3 - i) * MiB,
					 .tag = vt_tag_intern(names[i]),
					 .api = "cudaMalloc",
					 .driver_api = "cuMemAlloc_v2"};
		vt_tracker_record(&tracker, &event);
	}
	static struct vt_snapshot snapshot;
	vt_tracker_snapshot(&tracker, &snapshot);
	struct vt_run run;
	vt_run_start(&run, NULL, false);
	vt_run_end(&run, "exit 0");
	static struct vt_device_info devices[VT_MAX_DEVICES];
	devices[0] = (struct vt_device_info){.known = true, .name = "a GPU", .capacity = 1u << 30};
	for (uint32_t top = 1; top <= 2; top++) {
		struct vt_report report = {.run = &run,
					   .snapshot = &snapshot,
					   .devices = devices,
					   .top = top,
					   .recording = VT_SOURCE_HOOKS};
		char *text = NULL;
		size_t size = 0;
		FILE *summary = open_memstream(&text, &size);
		vt_report_write_summary(&report, summary);
		fclose(summary);
		const char *rest = top == 1 ? "and 2 more tags, 3.00 MiB at the peak\n"
					    : "and 1 more tag, 1.00 MiB at the peak\n";
		cr_assert(strstr(text, rest), "top %u: %s", top, text);
		free(text);
	}
	free(run.command);
	vt_snapshot_free(&snapshot);
	vt_tracker_destroy(&tracker);
}

/* A failure is named as the program saw it: the runtime returns the
 * driver's code as its own of the same number. */
Test(report, a_failure_is_named_as_the_program_saw_it)
{
	cr_assert_str_eq(vt_cuda_error_name("cudaMalloc", 2), "cudaErrorMemoryAllocation");
	cr_assert_str_eq(vt_cuda_error_name("cudaMallocAsync", 1), "cudaErrorInvalidValue");
	cr_assert_str_eq(vt_cuda_error_name("cuMemAlloc_v2", 2), "CUDA_ERROR_OUT_OF_MEMORY");
	cr_assert_str_eq(vt_cuda_error_name(NULL, 201), "CUDA_ERROR_INVALID_CONTEXT");
	cr_assert_str_eq(vt_cuda_error_name("cudaMalloc", 201), "cudaErrorDeviceUninitialized");
	cr_assert_null(vt_cuda_error_name("cudaMalloc", 12345));
}

/* A name from a report reaches a terminal as text: controls, C1 controls
 * (U+009B is a CSI to some terminals) and bytes that are not UTF-8 escaped,
 * other characters kept whole. */
Test(report, text_a_terminal_would_obey_is_escaped)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	vt_text_safe(out, "kv\x1b[2J\tcach\xc3\xa9 \xc2\x9b"
			  "1m \x9b \xe2\x82\xac \xf0\x9f\x94\xa5 \xe2\x82");
	fclose(out);
	cr_assert_str_eq(
		text, "kv\\x1b[2J\\tcach\xc3\xa9 \\xc2\\x9b1m \\x9b \xe2\x82\xac \xf0\x9f\x94\xa5 "
		      "\\xe2\\x82");
	free(text);
	/* An overlong slash and a surrogate, which the JSON writer escapes too. */
	out = open_memstream(&text, &size);
	vt_text_safe(out, "\xc0\xaf \xed\xa0\x80");
	fclose(out);
	cr_assert_str_eq(text, "\\xc0\\xaf \\xed\\xa0\\x80");
	free(text);
}
