/* vramtrace diff: what changed between two runs (fp16 vs bf16, batch 8 vs
 * 16), by device, kind, tag and stack. Stacks are matched by their
 * symbolized frames, never by address, so ASLR cannot break them. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_build.h"
#include "cli.h"
#include "commands.h"
#include "diff.h"
#include "formats.h"
#include "options.h"

const char *const vt_diff_section_names[SECTIONS] = {"device", "kind", "tag", "stack"};
const char *const vt_diff_section_titles[SECTIONS] = {
	"by device (peak)", "by kind (bytes at the peak)", "by tag (bytes at the peak)",
	"by stack (bytes at the peak)"};

static struct diff_row *row_for(struct diff_table *table, const char *key)
{
	if (!table->positions && !(table->positions = json_object()))
		return vt_json_checked(NULL), NULL;
	json_t *position = json_object_get(table->positions, key);
	if (position)
		return &table->rows[json_integer_value(position)];
	if (table->count == table->capacity) {
		size_t capacity = table->capacity ? table->capacity * 2 : 32;
		struct diff_row *rows = realloc(table->rows, capacity * sizeof(*rows));
		if (!rows)
			return vt_json_checked(NULL), NULL;
		table->rows = rows;
		table->capacity = capacity;
	}
	struct diff_row *row = &table->rows[table->count];
	*row = (struct diff_row){.key = strdup(key)};
	/* The index is never written out: a place cut inside a character
	 * needs no UTF-8 check. */
	json_t *index = json_integer((json_int_t)table->count);
	if (!row->key || !index || json_object_set_new_nocheck(table->positions, key, index) != 0)
		return vt_json_checked(NULL), NULL;
	table->count++;
	return row;
}

/* Sums over devices and ranks are checked: past 2^63-1 bytes the diff
 * names the row and stops rather than print a wrapped number. peak_low is
 * the least the contribution held at its own high point, peak the most. */
static struct diff_row *add_bounded(struct diff *d, enum diff_section section, const char *key,
				    bool side_b, int64_t at_peak, int64_t peak, int64_t peak_low)
{
	struct diff_row *row = d->by[section] ? row_for(&d->tables[section], key) : NULL;
	if (!row)
		return NULL;
	int64_t *sum = side_b ? &row->b : &row->a, *peak_sum = side_b ? &row->b_peak : &row->a_peak;
	if ((__builtin_add_overflow(*sum, at_peak, sum) ||
	     __builtin_add_overflow(*peak_sum, peak, peak_sum)) &&
	    !d->overflow[0])
		snprintf(d->overflow, sizeof(d->overflow), "the %s row '%.100s' of %s",
			 vt_diff_section_names[section], key, side_b ? "B" : "A");
	/* Several contributions to a row: their peaks need not have coincided. */
	int64_t *low = side_b ? &row->b_peak_low : &row->a_peak_low;
	if (peak_low > *low)
		*low = peak_low;
	if (*sum > *low)
		*low = *sum;
	return row;
}

static struct diff_row *add(struct diff *d, enum diff_section section, const char *key, bool side_b,
			    int64_t at_peak, int64_t peak)
{
	return add_bounded(d, section, key, side_b, at_peak, peak, peak);
}

/* A place's row: matched across runs by its place (stack_view.h), shown
 * by its brief line; a group's own peak is exact where the report has it. */
static void add_group(struct diff *d, const struct vt_report_model *report,
		      const struct vt_stack_group *group, bool side_b)
{
	char key[4096], label[1024];
	vt_stack_place(report, group->id, key, sizeof(key));
	struct diff_row *row = add_bounded(d, BY_STACK, key, side_b, group->sum.at_peak_bytes,
					   group->sum.peak_bytes, group->peak_low);
	if (row && !row->label)
		row->label =
			strdup(vt_stack_line(report, group->id, &d->view, 0, label, sizeof(label)));
}

static void add_stacks(struct diff *d, const struct vt_report_model *report,
		       const struct vt_owner *device, bool side_b)
{
	struct vt_stack_group *groups;
	size_t count = vt_stack_groups(report, device, &groups);
	for (size_t g = 0; g < count; g++)
		add_group(d, report, &groups[g], side_b);
	free(groups);
}

static void add_report(struct diff *d, const struct vt_report_model *report, const char *rank,
		       bool side_b)
{
	for (size_t i = 0; i < report->device_count; i++) {
		const struct vt_owner *device = &report->devices[i];
		if (d->device >= 0 && device->ordinal != d->device)
			continue;
		char name[96];
		snprintf(name, sizeof(name), "%s%s%sdevice %" PRId64, rank ? "rank " : "",
			 rank ? rank : "", rank ? " " : "", device->ordinal);
		add(d, BY_DEVICE, name, side_b, device->peak.bytes, device->peak.bytes);
		for (size_t k = 0; k < device->kind_count; k++)
			add(d, BY_KIND, device->kinds[k].kind, side_b,
			    device->kinds[k].counters.at_peak_bytes,
			    device->kinds[k].counters.peak_bytes);
		for (size_t t = 0; t < device->tag_count; t++)
			add(d, BY_TAG, device->tags[t].tag, side_b,
			    device->tags[t].counters.at_peak_bytes,
			    device->tags[t].counters.peak_bytes);
		add_stacks(d, report, device, side_b);
	}
}

static void add_side(struct diff *d, const struct vt_report_file *file, bool side_b)
{
	if (!file->merged)
		add_report(d, &file->report, NULL, side_b);
	for (size_t i = 0; file->merged && i < file->ranks.rank_count; i++) {
		const struct vt_rank *rank = &file->ranks.ranks[i];
		add_report(d, &rank->report,
			   rank->rank   ? rank->rank
			   : rank->file ? rank->file
					: "?",
			   side_b);
	}
}

static int64_t magnitude(int64_t value)
{
	return value < 0 ? -value : value;
}

static int by_change(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;
	int64_t da = magnitude(a->b - a->a), db = magnitude(b->b - b->a);
	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->key, b->key);
}

/* Sorts by |delta| and keeps small changes out of all but the devices. */
static void finish(struct diff *d, enum diff_section section)
{
	struct diff_table *table = &d->tables[section];
	if (table->positions)
		json_decref(table->positions);
	table->positions = NULL;
	if (table->count) /* an empty table has no rows to sort */
		qsort(table->rows, table->count, sizeof(*table->rows), by_change);
	if (section == BY_DEVICE)
		return;
	size_t kept = 0;
	for (size_t i = 0; i < table->count; i++) {
		if ((uint64_t)magnitude(table->rows[i].b - table->rows[i].a) >= d->min_delta) {
			table->rows[kept++] = table->rows[i];
		} else {
			free(table->rows[i].key);
			free(table->rows[i].label);
			table->hidden++;
		}
	}
	table->count = kept;
}

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

/* Exit 1 when a device's peak grew by more than the limit. */
static int gate(const struct diff *d)
{
	int status = VT_EXIT_OK;
	const struct diff_table *devices = &d->tables[BY_DEVICE];
	for (size_t i = 0; i < devices->count; i++) {
		const struct diff_row *row = &devices->rows[i];
		bool grew = row->a > 0 ? (unsigned __int128)row->b * 10000 >
						 (unsigned __int128)row->a * (10000 + d->grow_limit)
				       : row->b > 0;
		if (!grew)
			continue;
		char relative[32], ratio[32];
		vt_diff_change_texts(row, relative, ratio, sizeof(relative));
		fprintf(stderr, "vramtrace diff: %s peak grew %s, more than %u.%02u%%\n", row->key,
			relative, d->grow_limit / 100, d->grow_limit % 100);
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
		"  --fail-if-peak-grows PCT  exit 1 when a device's peak grew by more than PCT\n"
		"  -o, --output OUT          write to OUT instead of standard output\n"
		"  -h, --help                show this help\n\n"
		"Exit status: 0 done, 1 a peak grew past --fail-if-peak-grows, 2 bad input.\n");
}

static bool parse_by(struct diff *d, const char *list)
{
	memset(d->by, 0, sizeof(d->by));
	char *copy = strdup(list); /* the whole list, however long: none of it is cut */
	char *save = NULL;
	bool any = false, known = copy != NULL;
	for (char *item = known ? strtok_r(copy, ",", &save) : NULL; item && known;
	     item = strtok_r(NULL, ",", &save)) {
		int s = 0;
		while (s < SECTIONS && strcmp(vt_diff_section_names[s], item) != 0)
			s++;
		known = s < SECTIONS;
		if (known)
			d->by[s] = any = true;
	}
	free(copy);
	return known && any;
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
	case 'm': return vt_parse_size_option("diff", "--min-delta", value, &d->min_delta);
	case 'd': return vt_parse_count_option("diff", "--device", value, 0, 1023, &d->device);
	case 'F': return vt_parse_count_option("diff", "--frames", value, 1, 64, &d->view.frames);
	case 'A': d->view.all_frames = true; return true;
	case 'g':
		if (!(ok = d->fail_if_grows = vt_parse_percent(value, &d->grow_limit)))
			fprintf(stderr,
				"vramtrace diff: --fail-if-peak-grows '%s' is not a percentage "
				"from 0 "
				"to 100\n",
				value);
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
		fprintf(stderr, "vramtrace diff: %s\n", error);
		return false;
	}
	if (!vt_need_device("diff", &d->a, d->device) || !vt_need_device("diff", &d->b, d->device))
		return false;
	if (d->a.merged != d->b.merged) {
		fprintf(stderr, "vramtrace diff: %s is %s and %s is not; diff two of a kind\n",
			d->a.merged ? d->a.path : d->b.path, "a merged report",
			d->a.merged ? d->b.path : d->a.path);
		return false;
	}
	return true;
}

static void free_diff(struct diff *d)
{
	for (int s = 0; s < SECTIONS; s++) {
		for (size_t i = 0; i < d->tables[s].count; i++) {
			free(d->tables[s].rows[i].key);
			free(d->tables[s].rows[i].label);
		}
		free(d->tables[s].rows);
	}
	vt_report_close(&d->a);
	vt_report_close(&d->b);
}

int vt_command_diff(int argc, char **argv)
{
	struct diff d = {.by = {true, true, true, true}, .device = -1};
	const char *output = NULL, *files[2] = {NULL, NULL};
	int status = parse(argc, argv, &d, &output, files);
	if (status >= 0)
		return status;
	struct vt_cli_output out;
	if (!load_both(&d, files) || !vt_cli_output_open(&out, output, "diff")) {
		free_diff(&d);
		return VT_EXIT_BAD_INPUT;
	}
	add_side(&d, &d.a, false);
	add_side(&d, &d.b, true);
	if (d.overflow[0]) {
		fprintf(stderr,
			"vramtrace diff: %s adds up to more than 2^63-1 bytes over the devices; "
			"compare one device at a time with --device N\n",
			d.overflow);
		vt_cli_output_abort(&out);
		free_diff(&d);
		return VT_EXIT_BAD_INPUT;
	}
	for (int s = 0; s < SECTIONS; s++)
		finish(&d, (enum diff_section)s);
	print(&d, out.stream);
	status = vt_cli_output_commit(&out, "diff") ? VT_EXIT_OK : VT_EXIT_BAD_INPUT;
	if (status == VT_EXIT_OK && d.fail_if_grows)
		status = gate(&d);
	free_diff(&d);
	return status;
}
