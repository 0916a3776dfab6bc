/* vramtrace diff as JSON: both sides, and each section's rows. */
#include "json_build.h"
#include "diff.h"

static json_t *side_json(const struct vt_report_file *report)
{
	json_t *labels = json_object();
	const struct vt_run_model *run = report->merged ? NULL : &report->report.run;
	for (size_t i = 0; run && i < run->label_count; i++)
		vt_json_put(labels, run->labels[i].key, json_string(run->labels[i].value));
	return json_pack("{s:o, s:o}", "file", vt_json_text(report->path), "labels", labels);
}

static json_t *table_json(const struct diff_table *table)
{
	json_t *rows = json_array();
	for (size_t i = 0; i < table->count; i++) {
		const struct diff_row *row = &table->rows[i];
		json_t *entry = json_pack(
			"{s:o, s:I, s:I, s:I, s:o, s:o, s:I, s:I}", "key", vt_json_text(row->key),
			"a_bytes", (json_int_t)row->a, "b_bytes", (json_int_t)row->b, "delta_bytes",
			(json_int_t)(row->b - row->a), "relative",
			row->a ? json_real((double)(row->b - row->a) / (double)row->a)
			       : json_null(),
			"ratio", row->a ? json_real((double)row->b / (double)row->a) : json_null(),
			"a_peak_bytes", (json_int_t)row->a_peak, "b_peak_bytes",
			(json_int_t)row->b_peak);
		/* Several stacks at one place: the own peaks are bounds. */
		if (row->label) {
			vt_json_put(entry, "label", vt_json_text(row->label));
			vt_json_put(entry, "a_peak_low_bytes", json_integer(row->a_peak_low));
			vt_json_put(entry, "b_peak_low_bytes", json_integer(row->b_peak_low));
		}
		vt_json_push(rows, entry);
	}
	return json_pack("{s:o, s:I}", "rows", rows, "hidden", (json_int_t)table->hidden);
}

json_t *vt_diff_json(const struct diff *d)
{
	json_t *sections = json_object();
	for (int s = 0; s < SECTIONS; s++)
		if (d->by[s])
			vt_json_put(sections, vt_diff_section_names[s], table_json(&d->tables[s]));
	return vt_json_checked(json_pack("{s:o, s:o, s:I, s:o}", "a", side_json(&d->a), "b",
					 side_json(&d->b), "min_delta_bytes",
					 (json_int_t)d->min_delta, "sections", sections));
}
