/* The report reader under a fuzzer: any bytes go through jansson and the
 * schema check, and whatever passes is rendered in every format. Built
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
	if (vt_report_check(root, &merged, reason, sizeof(reason)) && !merged) {
		FILE *sink = fopen("/dev/null", "w");
		struct vt_format_options options = {.device = -1, .top = 20};
		if (sink) {
			vt_format_text(root, &options, sink);
			vt_format_json(root, &options, sink);
			vt_format_folded(root, &options, sink);
			vt_format_trace(root, &options, sink);
			vt_format_html(root, &options, sink);
			fclose(sink);
		}
	}
	json_decref(root);
	return 0;
}
