#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "descriptors.h"

static void clear(void)
{
	static const char *const names[] = {"VRAMTRACE_OUTPUT", "VRAMTRACE_LABEL",
					    "VRAMTRACE_SUMMARY", "VRAMTRACE_REPORT_LIST"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unsetenv(names[i]);
}

Test(config, defaults)
{
	clear();
	struct vt_config config;
	vt_config_load(&config);
	cr_assert_str_eq(config.output, "vramtrace.%p.json");
	cr_assert_str_eq(config.labels, "");
	cr_assert(config.summary);
	cr_assert_eq(config.history, 1048576);
}

Test(config, the_history_bound_is_a_count_within_its_range, .init = cr_redirect_stderr)
{
	struct vt_config config;
	setenv("VRAMTRACE_HISTORY", "0", 1);
	vt_config_load(&config);
	cr_assert_eq(config.history, 0);
	setenv("VRAMTRACE_HISTORY", "67108864", 1);
	vt_config_load(&config);
	cr_assert_eq(config.history, 67108864);
	setenv("VRAMTRACE_HISTORY", "67108865", 1);
	vt_config_load(&config);
	cr_assert_eq(config.history, 1048576);
	unsetenv("VRAMTRACE_HISTORY");
}

Test(config, values_are_read)
{
	clear();
	setenv("VRAMTRACE_OUTPUT", "/runs/%r.json", 1);
	setenv("VRAMTRACE_LABEL", "batch=16,dtype=bf16", 1);
	setenv("VRAMTRACE_SUMMARY", "0", 1);
	struct vt_config config;
	vt_config_load(&config);
	cr_assert_str_eq(config.output, "/runs/%r.json");
	cr_assert_str_eq(config.labels, "batch=16,dtype=bf16");
	cr_assert_not(config.summary);
}

Test(config, mistakes_warn_and_keep_the_default, .init = cr_redirect_stderr)
{
	clear();
	vt_stderr_remember(); /* the redirected one is this test's own */
	setenv("VRAMTRACE_SUMMARY", "yes", 1);
	setenv("VRAMTRACE_LABEL", "=nokey", 1);
	setenv("VRAMTRACE_OUTPUT", "", 1);
	setenv("VRAMTRACE_NOSUCH", "1", 1);
	struct vt_config config;
	vt_config_load(&config);
	cr_assert(config.summary);
	cr_assert_str_eq(config.labels, "");
	cr_assert_str_eq(config.output, "vramtrace.%p.json");
	fflush(stderr);
	FILE *err = cr_get_redirected_stderr();
	char text[2048] = "";
	size_t got = fread(text, 1, sizeof(text) - 1, err);
	text[got] = '\0';
	cr_assert(strstr(text, "vramtrace: VRAMTRACE_SUMMARY='yes' is not valid (expected 0 or 1)"),
		  "%s", text);
	cr_assert(strstr(text, "vramtrace: VRAMTRACE_LABEL='=nokey' is not valid"));
	cr_assert(strstr(text, "vramtrace: VRAMTRACE_OUTPUT='' is not valid"));
	cr_assert(strstr(text, "vramtrace: unknown variable VRAMTRACE_NOSUCH ignored"));
}

Test(config, counts_are_digits_alone, .init = cr_redirect_stderr)
{
	static const char *const bad[] = {" 5", "+5", "5 ", "-5", "0x5", ""};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		clear();
		setenv("VRAMTRACE_STACK_DEPTH", bad[i], 1);
		struct vt_config config;
		vt_config_load(&config);
		cr_assert_eq(config.stack_depth, 32, "'%s' kept the default", bad[i]);
	}
	clear();
	setenv("VRAMTRACE_STACK_DEPTH", "5", 1);
	struct vt_config config;
	vt_config_load(&config);
	cr_assert_eq(config.stack_depth, 5);
}

/* A watermark is a size or a share of the capacity: a bare number could be
 * either, and is refused with the default (none) kept. */
Test(config, a_watermark_without_a_unit_is_refused, .init = cr_redirect_stderr)
{
	clear();
	vt_stderr_remember();
	struct vt_config config;
	setenv("VRAMTRACE_WATERMARK", "2", 1);
	vt_config_load(&config);
	cr_assert_eq(config.watermark.high.bytes, 0);
	cr_assert_eq(config.watermark.high.hundredths, 0);
	setenv("VRAMTRACE_WATERMARK", "2GiB,1024", 1);
	vt_config_load(&config);
	cr_assert_eq(config.watermark.high.bytes, 0, "the lower mark is held to the same");
	setenv("VRAMTRACE_WATERMARK", "2KiB,90.5%", 1);
	vt_config_load(&config);
	cr_assert_eq(config.watermark.high.bytes, 2048);
	cr_assert_eq(config.watermark.low.hundredths, 9050);
	unsetenv("VRAMTRACE_WATERMARK");
	fflush(stderr);
	char text[2048] = "";
	text[fread(text, 1, sizeof(text) - 1, cr_get_redirected_stderr())] = '\0';
	cr_assert(strstr(text, "vramtrace: VRAMTRACE_WATERMARK='2' is not valid (expected a size "
			       "with its unit or a percentage of capacity"),
		  "%s", text);
}

Test(config, an_output_directory_gets_the_default_name)
{
	clear();
	setenv("VRAMTRACE_OUTPUT", "reports/", 1);
	struct vt_config config;
	vt_config_load(&config);
	cr_assert_str_eq(config.output, "reports/vramtrace.%p.json");
}

/* stderr as this test redirected it, read whole. */
static void read_stderr(char *text, size_t size)
{
	fflush(stderr);
	text[fread(text, 1, size - 1, cr_get_redirected_stderr())] = '\0';
}

/* A value's line breaks and escapes made a warning of several lines (the
 * second could pass for a line of vramtrace's own, or recolour the
 * terminal): they are shown escaped, in one line. */
Test(config, a_value_with_a_line_break_is_warned_in_one_line, .init = cr_redirect_stderr)
{
	clear();
	vt_stderr_remember();
	setenv("VRAMTRACE_NVTX", "a\nvramtrace: report written to x\x1b[31m\xff\tb", 1);
	setenv("VRAMTRACE_X\nY", "1", 1);
	struct vt_config config;
	vt_config_load(&config);
	unsetenv("VRAMTRACE_NVTX");
	unsetenv("VRAMTRACE_X\nY");
	char text[2048];
	read_stderr(text, sizeof(text));
	cr_assert(strstr(text, "vramtrace: VRAMTRACE_NVTX='a\\nvramtrace: report written to "
			       "x\\x1b[31m\\xff\\tb' is not valid (expected innermost or path); "
			       "using the default\n"),
		  "%s", text);
	cr_assert(strstr(text, "vramtrace: unknown variable VRAMTRACE_X\\nY ignored\n"), "%s",
		  text);
	unsigned lines = 0;
	for (const char *c = text; *c; c++)
		lines += *c == '\n';
	cr_assert_eq(lines, 2, "%s", text);
}

/* A 10 KB value filled the whole line, and what was wrong and what was
 * done instead never showed: its first 120 bytes are shown, then its
 * length. */
Test(config, a_long_value_leaves_room_for_the_rest_of_its_warning, .init = cr_redirect_stderr)
{
	clear();
	vt_stderr_remember();
	static char value[10001];
	memset(value, 'x', sizeof(value) - 1);
	setenv("VRAMTRACE_SUMMARY", value, 1);
	struct vt_config config;
	vt_config_load(&config);
	unsetenv("VRAMTRACE_SUMMARY");
	cr_assert(config.summary);
	char text[2048], expected[400];
	read_stderr(text, sizeof(text));
	snprintf(expected, sizeof(expected),
		 "vramtrace: VRAMTRACE_SUMMARY='%.120s... (10000 bytes)' is not valid (expected 0 "
		 "or 1); using the default\n",
		 value);
	cr_assert_str_eq(text, expected);
}

/* Only digits alone were refused as a bare number: " 2", "2 ", "1.5" and
 * "1e9" passed as a watermark of that many bytes. */
Test(config, a_watermark_number_with_blanks_or_a_fraction_is_still_refused,
     .init = cr_redirect_stderr)
{
	static const char *const bare[] = {" 2", "2 ", "1.5", "1e9", "2GiB, 1024", "2GiB,1.5"};
	for (size_t i = 0; i < sizeof(bare) / sizeof(bare[0]); i++) {
		clear();
		setenv("VRAMTRACE_WATERMARK", bare[i], 1);
		struct vt_config config;
		vt_config_load(&config);
		cr_assert_eq(config.watermark.high.bytes, 0, "'%s' refused", bare[i]);
		cr_assert_eq(config.watermark.high.hundredths, 0, "'%s' refused", bare[i]);
	}
	static const struct {
		const char *text;
		uint64_t bytes;
	} sized[] = {{"2 GiB", 2ull << 30}, {"1.5KiB ", 1536}, {"1e3B", 1000}};
	for (size_t i = 0; i < sizeof(sized) / sizeof(sized[0]); i++) {
		setenv("VRAMTRACE_WATERMARK", sized[i].text, 1);
		struct vt_config config;
		vt_config_load(&config);
		cr_assert_eq(config.watermark.high.bytes, sized[i].bytes, "'%s'", sized[i].text);
	}
	unsetenv("VRAMTRACE_WATERMARK");
}
