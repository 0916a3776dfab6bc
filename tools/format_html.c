/* The HTML pages: one self-contained file each, the page's script and
 * style inlined (tools/html, embedded at build time) and its data as JSON
 * in the page; nothing is fetched. The script draws the report (timeline
 * with each interval's lowest and highest, the moment of the peak, a flame
 * graph, sortable tables, the device view), the diff and the fit. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_build.h"
#include "formats.h"
#include "format_html_stacks.h"
#include "html_assets.h"

void vt_html_begin(FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n"
	      "<meta name=\"color-scheme\" content=\"light dark\">\n"
	      "<title>vramtrace</title>\n<style>\n",
	      out);
	fputs(vt_page_css, out);
	fputs("</style>\n<script>\n", out);
	fputs(vt_page_js, out);
	fputs("</script></head><body>\n<h1>vramtrace</h1>\n", out);
}

/* JSON inside a script element. Any string of a report may hold "</script>"
 * or "<!--<script>" (which makes the parser skip the real end tag and the
 * page draws nothing), so no '<', '>' or '&' reaches the page raw: they
 * only occur inside JSON strings, where \u escapes mean the same. U+2028
 * and U+2029 are escaped too, for readers that take the data as script. */
void vt_html_data(FILE *out, json_t *data)
{
	char *text = json_dumps(data, JSON_COMPACT | JSON_PRESERVE_ORDER);
	fputs("<script type=\"application/json\" class=\"vt-data\">", out);
	for (const unsigned char *c = (const unsigned char *)(text ? text : "null"); *c; c++) {
		if (*c == '<' || *c == '>' || *c == '&')
			fprintf(out, "\\u%04x", *c);
		else if (c[0] == 0xe2 && c[1] == 0x80 && (c[2] == 0xa8 || c[2] == 0xa9))
			fprintf(out, "\\u%04x", 0x2000 | (c[2] - 0x80)), c += 2;
		else
			fputc(*c, out);
	}
	fputs("</script>\n", out);
	free(text);
}

void vt_html_body(const struct vt_report_model *report, const struct vt_format_options *options,
		  FILE *out)
{
	json_t *shown = vt_selected_document(report, options);
	vt_html_stack_views(report, shown, &options->view, options->top_given ? options->top : 0);
	char title[160] = "";
	if (options->rank)
		snprintf(title, sizeof(title), "rank %s", options->rank);
	json_t *data =
		json_pack("{s:s, s:o, s:o, s:o}", "page", "report", "budget",
			  /* past 2^63-1 bytes as the double the page's script reads anyway */
			  !options->budget              ? json_null()
			  : options->budget > INT64_MAX ? json_real((double)options->budget)
							: json_integer((json_int_t)options->budget),
			  "title", vt_json_text(title), "report", shown);
	vt_html_data(out, data);
	json_decref(data);
}

/* What the diff page draws of one report: its run and, per device and the
 * host, the figures and the timeline; not its stacks (the diff has them),
 * so that a diff of two 16k-stack reports stays small. */
static json_t *owner_outline(json_t *owner)
{
	static const char *const keys[] = {"ordinal",  "name",     "capacity_bytes",
					   "peak",     "timeline", "live_at_exit_bytes",
					   "failures", NULL};
	json_t *outline = json_object();
	for (const char *const *key = keys; *key; key++)
		if (json_object_get(owner, *key))
			vt_json_put(outline, *key, json_incref(json_object_get(owner, *key)));
	return outline;
}

static json_t *outline(json_t *report)
{
	json_t *devices = json_array(), *device;
	size_t i;
	json_array_foreach (json_object_get(report, "devices"), i, device)
		vt_json_push(devices, owner_outline(device));
	json_t *host = json_object_get(report, "host");
	return json_pack("{s:O?, s:o, s:o}", "run", json_object_get(report, "run"), "devices",
			 devices, "host", json_is_object(host) ? owner_outline(host) : json_null());
}

static int64_t magnitude(json_t *row)
{
	int64_t delta = json_integer_value(json_object_get(row, "delta_bytes"));
	return delta < 0 ? -(delta + 1) : delta; /* no overflow at INT64_MIN */
}

static int by_change(const void *x, const void *y)
{
	int64_t a = magnitude(*(json_t *const *)x), b = magnitude(*(json_t *const *)y);
	return a < b ? 1 : a > b ? -1 : 0;
}

static int64_t add(int64_t sum, json_t *row, const char *key)
{
	int64_t result;
	if (__builtin_add_overflow(sum, json_integer_value(json_object_get(row, key)), &result))
		return sum < 0 ? INT64_MIN : INT64_MAX;
	return result;
}

/* The page lists the stacks that changed most; the rest, summed, as one
 * row ("--format json" lists them all): a diff of two reports of 32k
 * stacks of 800-character names is 35 MB in full. */
#define PAGE_STACK_ROWS 1000

static json_t *page_diff(json_t *diff)
{
	json_t *shown = json_deep_copy(diff);
	json_t *section = json_object_get(json_object_get(shown, "sections"), "stack");
	json_t *rows = json_object_get(section, "rows");
	size_t count = json_array_size(rows);
	json_t **sorted = count > PAGE_STACK_ROWS ? malloc(count * sizeof(*sorted)) : NULL;
	if (!sorted)
		return shown;
	for (size_t i = 0; i < count; i++)
		sorted[i] = json_array_get(rows, i);
	qsort(sorted, count, sizeof(*sorted), by_change);
	json_t *kept = json_array();
	int64_t a = 0, b = 0;
	for (size_t i = 0; i < count; i++) {
		if (i < PAGE_STACK_ROWS) {
			json_array_append(kept, sorted[i]);
		} else {
			a = add(a, sorted[i], "a_bytes");
			b = add(b, sorted[i], "b_bytes");
		}
	}
	free(sorted);
	vt_json_put(section, "rows", kept);
	vt_json_put(section, "rest",
		    json_pack("{s:I, s:I, s:I}", "count", (json_int_t)(count - PAGE_STACK_ROWS),
			      "a_bytes", (json_int_t)a, "b_bytes", (json_int_t)b));
	return shown;
}

void vt_html_diff(json_t *a, json_t *b, const char *a_path, const char *b_path, json_t *diff,
		  FILE *out)
{
	vt_html_begin(out);
	json_t *data = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "page", "diff", "a", outline(a),
				 "b", outline(b), "a_path", vt_json_text(a_path), "b_path",
				 vt_json_text(b_path), "diff", page_diff(diff));
	vt_html_data(out, data);
	json_decref(data);
	vt_html_end(out);
}

void vt_html_end(FILE *out)
{
	fputs("</body></html>\n", out);
}

void vt_format_html(const struct vt_report_model *report, const struct vt_format_options *options,
		    FILE *out)
{
	vt_html_begin(out);
	vt_html_body(report, options, out);
	vt_html_end(out);
}
