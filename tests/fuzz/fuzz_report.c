/* The report reader under a fuzzer: any bytes go through its parse (the
 * quoting of integers past 2^63, then jansson), the
 * schema check and the model, and whatever passes is rendered in every
 * format. Built
 * with clang -fsanitize=fuzzer,address,undefined (meson -Dfuzzer=true), and
 * linked with corpus_main.c into a regression test of the saved corpus. */
#include <stdint.h>
#include <stdio.h>

#include "../../tools/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char error[1024];
	json_t *root = vt_report_parse("input", (const char *)data, size, error, sizeof(error));
	if (!root)
		return 0;
	bool merged;
	char reason[512];
	struct vt_report_model report;
	if (vt_report_check(root, &merged, reason, sizeof(reason)) && !merged &&
	    vt_report_model_fill(root, &report)) {
		FILE *sink = fopen("/dev/null", "w");
		struct vt_format_options options = {.device = -1, .top = 20};
		if (sink) {
			vt_format_text(&report, &options, sink);
			vt_format_json(&report, &options, sink);
			vt_format_folded(&report, &options, sink);
			vt_format_trace(&report, &options, sink);
			vt_format_html(&report, &options, sink);
			fclose(sink);
		}
		vt_report_model_free(&report);
	}
	json_decref(root);
	return 0;
}
