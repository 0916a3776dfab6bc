/* The report reader under a fuzzer: any bytes go through jansson, the
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
	json_error_t error;
	json_t *root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &error);
	if (!root)
		return 0;
	bool merged;
	char reason[512];
	struct vt_report report;
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
