/* vramtrace diff's text and markdown tables. */
#include <inttypes.h>
#include <string.h>

#include "diff.h"
#include "formats.h"

/* The first column's width in the text tables; a longer place goes on a
 * line of its own above its figures. */
#define LABEL_WIDTH 42

static void signed_size(int64_t bytes, char *buf, unsigned size)
{
	char text[32];
	snprintf(buf, size, "%s%s", bytes < 0 ? "" : "+", vt_human(bytes, text, sizeof(text)));
}

/* Two decimals, so a shrink to under a hundredth is never x0.00 (only a
 * drop to nothing is): four below 0.01, and below 0.001 one significant
 * digit with its exponent (1 GiB to 1 MiB is x1e-03). Seven characters at
 * most, the column's width. The pages write it the same way (diff.js). */
static void ratio_text(double ratio, char *buf, size_t size)
{
	if (ratio > 0 && ratio < 0.001)
		snprintf(buf, size, "x%.0e", ratio);
	else
		snprintf(buf, size, "x%.*f", ratio > 0 && ratio < 0.01 ? 4 : 2, ratio);
}

void vt_diff_change_texts(const struct diff_row *row, char *relative, char *ratio, size_t size)
{
	if (row->a > 0) {
		snprintf(relative, size, "%+.1f%%",
			 100.0 * (double)(row->b - row->a) / (double)row->a);
		ratio_text((double)row->b / (double)row->a, ratio, size);
	} else {
		snprintf(relative, size, "%s", row->b ? "new" : "0.0%");
		snprintf(ratio, size, "%s", row->b ? "-" : "x1.00");
	}
}

static void side_header(FILE *out, const char *name, const struct vt_report_file *report,
			bool markdown)
{
	fprintf(out, "%s%s: ", markdown ? "- **" : "", name);
	vt_print_safe(out, report->path);
	if (markdown)
		fputs("**", out);
	const struct vt_run_model *run = report->merged ? NULL : &report->report.run;
	for (size_t i = 0; run && i < run->label_count; i++) {
		fputs(i ? ", " : "  ", out);
		vt_print_safe(out, run->labels[i].key);
		fputc('=', out);
		vt_print_safe(out, run->labels[i].value);
	}
	fputc('\n', out);
}

/* Devices have one number, the peak; other rows add their own peaks. */
static void print_header(enum diff_section section, bool markdown, FILE *out)
{
	bool peaks = section != BY_DEVICE;
	if (markdown)
		fprintf(out,
			"\n### %s\n\n| %s | A | B | delta | change | ratio |%s\n"
			"|---|---:|---:|---:|---:|---:|%s\n",
			vt_diff_section_titles[section], vt_diff_section_names[section],
			peaks ? " own peak A | own peak B |" : "", peaks ? "---:|---:|" : "");
	else
		fprintf(out, "\n%-*s %12s %12s %13s %9s %7s%s\n", LABEL_WIDTH + 2,
			vt_diff_section_titles[section], "A", "B", "delta", "change", "ratio",
			peaks ? "   own peak A   own peak B" : "");
}

/* An own peak, "<=" before it where it is a bound (several stacks at one
 * place whose peaks may not have coincided). */
static void peak_text(int64_t high, int64_t low, char *buf, size_t size)
{
	char text[32];
	snprintf(buf, size, "%s%s", low < high ? "<=" : "", vt_human(high, text, sizeof(text)));
}

/* A name as a markdown table's code cell. A '|' ends a cell even inside a
 * code span (C++'s operator|, a tag "a|b"), which moved every figure after
 * it into the wrong column: it is written as \|, which the table reads
 * as '|'. A fence longer than the longest run of backticks in the name keeps
 * them in the span. */
static void markdown_cell(FILE *out, const char *name)
{
	size_t longest = 0, run = 0;
	for (const char *p = name; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	size_t length = strlen(name);
	bool pad = length && (name[0] == '`' || name[length - 1] == '`');
	fputs("| ", out);
	for (size_t i = 0; i <= longest; i++)
		fputc('`', out);
	if (pad)
		fputc(' ', out);
	for (const char *p = name; *p; p++) {
		if (*p == '|')
			fputc('\\', out);
		fputc(*p, out);
	}
	if (pad)
		fputc(' ', out);
	for (size_t i = 0; i <= longest; i++)
		fputc('`', out);
	fputs(" |", out);
}

static void print_row(const struct diff_row *row, bool peaks, bool markdown, FILE *out)
{
	char a[32], b[32], delta[40], relative[32], ratio[32], a_peak[40], b_peak[40];
	vt_human(row->a, a, sizeof(a));
	vt_human(row->b, b, sizeof(b));
	peak_text(row->a_peak, row->a_peak_low, a_peak, sizeof(a_peak));
	peak_text(row->b_peak, row->b_peak_low, b_peak, sizeof(b_peak));
	char safe[8192];
	const char *shown = vt_safe(row->label ? row->label : row->key, "", safe, sizeof(safe));
	signed_size(row->b - row->a, delta, sizeof(delta));
	vt_diff_change_texts(row, relative, ratio, sizeof(relative));
	if (markdown) {
		markdown_cell(out, shown);
		fprintf(out, " %s | %s | %s | %s | %s |", a, b, delta, relative, ratio);
	} else if (strlen(shown) > LABEL_WIDTH) /* whole on a line of its own: a place's line
						 * is what tells two rows apart */
		fprintf(out, "  %s\n  %-*s %12s %12s %13s %9s %7s", shown, LABEL_WIDTH, "", a, b,
			delta, relative, ratio);
	else
		fprintf(out, "  %-*s %12s %12s %13s %9s %7s", LABEL_WIDTH, shown, a, b, delta,
			relative, ratio);
	if (peaks)
		fprintf(out, markdown ? " %s | %s |" : " %12s %12s", a_peak, b_peak);
	fputc('\n', out);
}

static void print_table(const struct diff *d, enum diff_section section, FILE *out)
{
	const struct diff_table *table = &d->tables[section];
	bool markdown = d->format == FORMAT_MARKDOWN;
	print_header(section, markdown, out);
	for (size_t i = 0; i < table->count; i++)
		print_row(&table->rows[i], section != BY_DEVICE, markdown, out);
	if (table->hidden) {
		char limit[32];
		fprintf(out, "%s%zu %s changing less than %s hidden\n", markdown ? "\n" : "  ",
			table->hidden, table->hidden == 1 ? "row" : "rows",
			vt_human((int64_t)d->min_delta, limit, sizeof(limit)));
	}
}

void vt_diff_write_text(const struct diff *d, FILE *out)
{
	side_header(out, "A", &d->a, d->format == FORMAT_MARKDOWN);
	side_header(out, "B", &d->b, d->format == FORMAT_MARKDOWN);
	for (int s = 0; s < SECTIONS; s++)
		if (d->by[s])
			print_table(d, (enum diff_section)s, out);
}
