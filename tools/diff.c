/* The diff engine: two reports' rows matched by device, kind, tag and place,
 * their sums checked, sorted by change, small changes set aside. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "json_build.h"

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
	if (!row->key || !index || json_object_set_new_nocheck(table->positions, key, index) != 0) {
		free(row->key); /* the row was never counted */
		return vt_json_checked(NULL), NULL;
	}
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

void vt_diff_add_side(struct diff *d, const struct vt_report_file *file, bool side_b)
{
	if (!file->merged)
		add_report(d, &file->report, NULL, side_b);
	for (size_t i = 0; file->merged && i < file->ranks.rank_count; i++) {
		const struct vt_rank *rank = &file->ranks.ranks[i];
		add_report(d, &rank->report, vt_rank_name(rank), side_b);
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

void vt_diff_finish(struct diff *d)
{
	for (int s = 0; s < SECTIONS; s++)
		finish(d, (enum diff_section)s);
}

void vt_diff_free(struct diff *d)
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
