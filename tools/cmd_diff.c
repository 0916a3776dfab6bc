/* vramtrace diff: what changed between two runs (fp16 vs bf16, batch 8 vs
 * 16), by device, kind, tag and stack. Stacks are matched by their
 * symbolized frames, never by address, so ASLR cannot break them. */
#include <stdlib.h>
#include <string.h>

#include "json_build.h"
#include "cli.h"
#include "commands.h"
#include "diff.h"
#include "formats.h"
#include "options.h"

static void print(const struct diff *d, FILE *out)
{
	if (d->format == FORMAT_JSON || d->format == FORMAT_HTML) {
		json_t *document = vt_diff_json(d);
		if (d->format == FORMAT_HTML) {
			vt_html_diff(d->a.root, d->b.root, d->a.path, d->b.path, document, out);
		} else {
			vt_json_dump(document, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			fputc('\n', out);
		}
		json_decref(document);
		return;
	}
	vt_diff_write_text(d, out);
}

/* Whether b grew from a by more than limit hundredths of a percent: whether
 * (b - a) * 10000 > a * limit, exact in 128 bits for any limit, as
 * limit <= floor(((b - a) * 10000 - 1) / a). */
static bool grew_past(int64_t a, int64_t b, unsigned __int128 limit)
{
	if (a <= 0)
		return b > 0;
	if (b <= a)
		return false;
	unsigned __int128 growth = (unsigned __int128)(b - a) * 10000;
	return limit <= (growth - 1) / (uint64_t)a;
}

/* "12.50": hundredths of a percent as a number with two decimals. */
static const char *percent_text(unsigned __int128 hundredths, char *buf, size_t size)
{
	char digits[48];
	size_t n = 0;
	unsigned __int128 whole = hundredths / 100;
	do
		digits[n++] = (char)('0' + (int)(whole % 10));
	while ((whole /= 10) && n < sizeof(digits));
	size_t used = 0;
	while (n && used + 1 < size)
		buf[used++] = digits[--n];
	snprintf(buf + used, size - used, ".%02u", (unsigned)(hundredths % 100));
	return buf;
}

/* Exit 1 when a device's peak grew by more than the limit. */
static int gate(const struct diff *d)
{
	int status = VT_EXIT_OK;
	const struct diff_table *devices = &d->tables[BY_DEVICE];
	for (size_t i = 0; i < devices->count; i++) {
		const struct diff_row *row = &devices->rows[i];
		if (!grew_past(row->a, row->b, d->grow_limit))
			continue;
		char relative[32], ratio[32], limit[48];
		vt_diff_change_texts(row, relative, ratio, sizeof(relative));
		if (row->a > 0)
			vt_diagnostic("vramtrace diff: %s peak grew %s, more than %s%%", row->key,
				      relative, percent_text(d->grow_limit, limit, sizeof(limit)));
		else /* was "peak grew new" */
			vt_diagnostic("vramtrace diff: %s peak is new in B (none in A), counted as "
				      "growing more than %s%%",
				      row->key, percent_text(d->grow_limit, limit, sizeof(limit)));
		status = VT_EXIT_FAILED;
	}
	return status;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: vramtrace diff A B [OPTIONS]\n\n"
		"Shows how report B differs from report A: each device's peak, then bytes at\n"
		"the peak by kind, tag and stack, with the delta, the change and the ratio B/A,\n"
		"largest change first. Stacks are matched by their symbolized frames. Both\n"
		"reports must be single-process reports, or both merged ones.\n\n"
		"Options:\n"
		"  --by LIST                 sections: device, kind, tag, stack, comma separated\n"
		"                            (default all)\n"
		"  --format FORMAT           text (default), markdown, json, or html (one\n"
		"                            self-contained page: both timelines on one time\n"
		"                            axis, tags and kinds A against B, stacks by growth)\n"
		"  --min-delta SIZE          hide rows changing less than SIZE, e.g. 1MiB\n"
		"                            (default 0: every row, unchanged ones as x1.00)\n"
		"  --device N                only device N\n"
		"  --frames N                stack rows: frames from the program's own line\n"
		"                            (default 4)\n"
		"  --all-frames              stack rows: every frame, library frames unfolded\n"
		"  --fail-if-peak-grows PCT  exit 1 when a device's peak grew by more than PCT,\n"
		"                            any percentage (250%% is past 3.5 times A's peak)\n"
		"  -o, --output OUT          write to OUT instead of standard output\n"
		"  -h, --help                show this help\n\n"
		"Exit status: 0 done, 1 a peak grew past --fail-if-peak-grows, 2 bad input.\n");
}

/* Read in place, item by item, however long the list: nothing to copy,
 * so nothing that can fail but the names. Empty items (",,") are passed
 * over; at least one section must be named. */
static bool parse_by(struct diff *d, const char *list)
{
	memset(d->by, 0, sizeof(d->by));
	bool any = false;
	for (const char *item = list; *item; item += *item == ',') {
		size_t length = strcspn(item, ",");
		if (!length)
			continue;
		int s = 0;
		while (s < SECTIONS && (strlen(vt_diff_section_names[s]) != length ||
					strncmp(vt_diff_section_names[s], item, length) != 0))
			s++;
		if (s == SECTIONS)
			return false;
		d->by[s] = any = true;
		item += length;
	}
	return any;
}

static bool parse_format(struct diff *d, const char *name)
{
	static const char *const names[] = {"text", "markdown", "json", "html"};
	for (int f = 0; f < 4; f++)
		if (strcmp(names[f], name) == 0) {
			d->format = (enum diff_format)f;
			return true;
		}
	return false;
}

static const struct vt_option diff_options[] = {
	{"by", 0, VT_OPTION_VALUE, 'b', "LIST of device, kind, tag, stack", NULL},
	{"format", 0, VT_OPTION_VALUE, 'f', "FORMAT: text, markdown, json or html", NULL},
	{"min-delta", 0, VT_OPTION_VALUE, 'm', "SIZE, e.g. 1MiB", NULL},
	{"device", 0, VT_OPTION_VALUE, 'd', "N, a device ordinal", NULL},
	{"fail-if-peak-grows", 0, VT_OPTION_VALUE, 'g', "PCT, e.g. 5%", NULL},
	{"output", 'o', VT_OPTION_VALUE, 'o', "OUT, a file (- for standard output)", NULL},
	{"frames", 0, VT_OPTION_VALUE, 'F', "N, lines of each stack", NULL},
	{"all-frames", 0, VT_OPTION_FLAG, 'A', NULL, NULL},
	{"help", 'h', VT_OPTION_FLAG, 'h', NULL, NULL},
};

static bool diff_option(int id, const char *value, struct diff *d, const char **output)
{
	bool ok = true;
	switch (id) {
	case 'b':
		if (!(ok = parse_by(d, value)))
			vt_usage_error("diff",
				       "--by '%s': use device, kind, tag or stack, comma "
				       "separated",
				       value);
		break;
	case 'f':
		if (!(ok = parse_format(d, value)))
			vt_usage_error("diff", "unknown format '%s' (text, markdown, json or html)",
				       value);
		break;
	case 'm':
		return vt_parse_size_option("diff", "--min-delta", value, INT64_MAX, &d->min_delta);
	case 'd': return vt_parse_count_option("diff", "--device", value, 0, 1023, &d->device);
	case 'F': return vt_parse_count_option("diff", "--frames", value, 1, 64, &d->view.frames);
	case 'A': d->view.all_frames = true; return true;
	case 'g':
		ok = d->fail_if_grows = vt_parse_percent_option("diff", "--fail-if-peak-grows",
								value, false, &d->grow_limit);
		break;
	default: *output = value;
	}
	return ok;
}

/* Returns -1 to go on, or the exit status; files gets A and B. */
static int parse(int argc, char **argv, struct diff *d, const char **output, const char **files)
{
	struct vt_arguments arguments;
	vt_arguments_init(&arguments, "diff", usage, argc, argv, diff_options,
			  sizeof(diff_options) / sizeof(diff_options[0]));
	const char *value;
	int count = 0;
	for (int id; (id = vt_arguments_next(&arguments, &value)) != VT_ARGUMENT_END;) {
		if (id <= VT_ARGUMENT_ERROR)
			return vt_arguments_exit(id);
		if (id == VT_ARGUMENT_OPERAND && count == 2) {
			vt_usage_error("diff", "give two report files, A and B, not '%s' too",
				       value);
			return VT_EXIT_BAD_INPUT;
		}
		if (id == VT_ARGUMENT_OPERAND)
			files[count++] = value;
		else if (!diff_option(id, value, d, output))
			return VT_EXIT_BAD_INPUT;
	}
	if (count != 2) {
		vt_usage_error("diff", "give two report files, A and B");
		return VT_EXIT_BAD_INPUT;
	}
	return -1;
}

static bool load_both(struct diff *d, const char **files)
{
	char error[1024];
	if (!vt_report_load(files[0], &d->a, error, sizeof(error)) ||
	    !vt_report_load(files[1], &d->b, error, sizeof(error))) {
		vt_diagnostic("vramtrace diff: %s", error);
		return false;
	}
	if (!vt_need_device("diff", &d->a, d->device) || !vt_need_device("diff", &d->b, d->device))
		return false;
	if (d->a.merged != d->b.merged) {
		vt_diagnostic("vramtrace diff: %s is %s and %s is not; diff two of a kind",
			      d->a.merged ? d->a.path : d->b.path, "a merged report",
			      d->a.merged ? d->b.path : d->a.path);
		return false;
	}
	return true;
}

int vt_command_diff(int argc, char **argv)
{
	struct diff d = {.by = {true, true, true, true}, .device = -1};
	const char *output = NULL, *files[2] = {NULL, NULL};
	int status = parse(argc, argv, &d, &output, files);
	if (status >= 0)
		return status;
	if (!vt_cli_output_apart("diff", output, files, 2))
		return VT_EXIT_BAD_INPUT;
	struct vt_cli_output out;
	if (!load_both(&d, files) || !vt_cli_output_open(&out, output, "diff")) {
		vt_diff_free(&d);
		return VT_EXIT_BAD_INPUT;
	}
	vt_diff_add_side(&d, &d.a, false);
	vt_diff_add_side(&d, &d.b, true);
	if (d.overflow[0]) {
		vt_diagnostic(
			"vramtrace diff: %s adds up to more than 2^63-1 bytes over the devices; "
			"compare one device at a time with --device N",
			d.overflow);
		vt_cli_output_abort(&out);
		vt_diff_free(&d);
		return VT_EXIT_BAD_INPUT;
	}
	vt_diff_finish(&d);
	print(&d, out.stream);
	status = vt_cli_output_commit(&out, "diff") ? VT_EXIT_OK : VT_EXIT_BAD_INPUT;
	if (status == VT_EXIT_OK && d.fail_if_grows)
		status = gate(&d);
	vt_diff_free(&d);
	return status;
}
