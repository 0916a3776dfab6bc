/* vramtrace diff as JSON: both sides, and each section's rows. */
#include "diff.h"

static json_t *side_json(const struct vt_report_file *report)
{
	json_t *labels = json_object();
	const struct vt_run *run = report->merged ? NULL : &report->report.run;
	for (size_t i = 0; run && i < run->label_count; i++)
		json_object_set_new(labels, run->labels[i].key, json_string(run->labels[i].value));
	return json_pack("{s:s, s:o}", "file", report->path, "labels", labels);
}

static json_t *table_json(const struct diff_table *table)
{
	json_t *rows = json_array();
	for (size_t i = 0; i < table->count; i++) {
		const struct diff_row *row = &table->rows[i];
		json_t *entry = json_pack(
			"{s:s, s:I, s:I, s:I, s:o, s:o, s:I, s:I}", "key", row->key, "a_bytes",
			(json_int_t)row->a, "b_bytes", (json_int_t)row->b, "delta_bytes",
			(json_int_t)(row->b - row->a), "relative",
			row->a ? json_real((double)(row->b - row->a) / (double)row->a)
			       : json_null(),
			"ratio", row->a ? json_real((double)row->b / (double)row->a) : json_null(),
			"a_peak_bytes", (json_int_t)row->a_peak, "b_peak_bytes",
			(json_int_t)row->b_peak);
		/* Several stacks at one place: the own peaks are bounds. */
		if (row->label) {
			json_object_set_new(entry, "label", json_string(row->label));
			json_object_set_new(entry, "a_peak_low_bytes",
					    json_integer(row->a_peak_low));
			json_object_set_new(entry, "b_peak_low_bytes",
					    json_integer(row->b_peak_low));
		}
		json_array_append_new(rows, entry);
	}
	return json_pack("{s:o, s:I}", "rows", rows, "hidden", (json_int_t)table->hidden);
}

json_t *vt_diff_json(const struct diff *d)
{
	json_t *sections = json_object();
	for (int s = 0; s < SECTIONS; s++)
		if (d->by[s])
			json_object_set_new(sections, vt_diff_section_names[s],
					    table_json(&d->tables[s]));
	return json_pack("{s:o, s:o, s:I, s:o}", "a", side_json(&d->a), "b", side_json(&d->b),
			 "min_delta_bytes", (json_int_t)d->min_delta, "sections", sections);
}
