/* vramtrace merge never writes a merged report larger than report, diff and
 * check read: it measures the document as printed before writing it. */
#include <criterion/criterion.h>
#include <string.h>

#include "formats.h"
#include "merged.h"

/* A loaded report keeps its path, as the command line's words stay. */
static const char *const paths[4] = {"tests/fixtures/rank0.json", "tests/fixtures/rank1.json",
				     "tests/fixtures/rank2.json", "tests/fixtures/rank3.json"};

static json_t *merged_fixtures(struct vt_report_file *files)
{
	char error[512];
	for (int i = 0; i < 4; i++)
		cr_assert(vt_report_load(paths[i], &files[i], error, sizeof(error)), "%s", error);
	json_t *merged = vt_merge(files, 4);
	cr_assert_not_null(merged);
	return merged;
}

Test(merge_limit, the_printed_size_is_exact)
{
	struct vt_report_file files[4] = {0};
	json_t *merged = merged_fixtures(files);
	FILE *out = tmpfile();
	cr_assert_not_null(out);
	vt_print_json(merged, out);
	cr_assert_eq(vt_print_json_bytes(merged), (uint64_t)ftell(out));
	fclose(out);
	json_decref(merged);
	for (int i = 0; i < 4; i++)
		vt_report_close(&files[i]);
}

Test(merge_limit, a_merged_report_at_the_limit_is_refused)
{
	struct vt_report_file files[4] = {0};
	json_t *merged = merged_fixtures(files);
	uint64_t bytes = vt_print_json_bytes(merged);
	char error[512] = "", expected[512];
	cr_assert(vt_merge_readable(merged, bytes + 1, error, sizeof(error)));
	cr_assert_not(vt_merge_readable(merged, bytes, error, sizeof(error)));
	snprintf(expected, sizeof(expected),
		 "the merged report would be %llu bytes, more than report, diff and check read "
		 "(0 MiB); merge fewer reports at once, or write them with a lower VRAMTRACE_TOP",
		 (unsigned long long)bytes);
	cr_assert_str_eq(error, expected);
	json_decref(merged);
	for (int i = 0; i < 4; i++)
		vt_report_close(&files[i]);
}
