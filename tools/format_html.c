/* The HTML pages: one self-contained file each, the page's script and
 * style inlined (tools/html, embedded at build time) and its data as JSON
 * in the page; nothing is fetched. The script draws the report (timeline
 * with each interval's lowest and highest, the moment of the peak, a flame
 * graph, sortable tables, the device view) and the diff. */
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "../lib/core/plumbing.h"
#include "html_assets.h"

void vt_html_begin(FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n"
	      "<title>vramtrace</title>\n<style>\n",
	      out);
	fputs(vt_page_css, out);
	fputs("</style>\n<script>\n", out);
	fputs(vt_page_js, out);
	fputs("</script></head><body>\n<h1>vramtrace</h1>\n", out);
}

/* The one list of frames to leave out (core/plumbing.h), for the script. */
static json_t *plumbing(void)
{
	json_t *modules = json_array(), *functions = json_array();
	for (const char *const *name = vt_plumbing_modules; *name; name++)
		json_array_append_new(modules, json_string(*name));
	for (const char *const *name = vt_plumbing_functions; *name; name++)
		json_array_append_new(functions, json_string(*name));
	return json_pack("{s:o, s:o}", "modules", modules, "functions", functions);
}

/* JSON inside a script element: "</" would end the element early. */
static void put_data(FILE *out, json_t *data)
{
	char *text = json_dumps(data, JSON_COMPACT | JSON_PRESERVE_ORDER);
	fputs("<script type=\"application/json\" class=\"vt-data\">", out);
	for (const char *c = text ? text : "null"; *c; c++) {
		if (c[0] == '<' && c[1] == '/')
			fputs("<\\", out);
		else
			fputc(*c, out);
	}
	fputs("</script>\n", out);
	free(text);
}

void vt_html_body(const struct vt_report *report, const struct vt_format_options *options,
		  FILE *out)
{
	json_t *shown = vt_selected_document(report, options);
	char title[160] = "";
	if (options->rank)
		snprintf(title, sizeof(title), "rank %s", options->rank);
	json_t *data =
		json_pack("{s:s, s:o, s:s, s:o}", "page", "report", "budget",
			  options->budget ? json_integer((json_int_t)options->budget) : json_null(),
			  "title", title, "report", shown);
	put_data(out, data);
	json_decref(data);
}

void vt_html_diff(json_t *a, json_t *b, const char *a_path, const char *b_path, json_t *diff,
		  FILE *out)
{
	vt_html_begin(out);
	json_t *data =
		json_pack("{s:s, s:O, s:O, s:s, s:s, s:O, s:o}", "page", "diff", "a", a, "b", b,
			  "a_path", a_path, "b_path", b_path, "diff", diff, "plumbing", plumbing());
	put_data(out, data);
	json_decref(data);
	vt_html_end(out);
}

void vt_html_end(FILE *out)
{
	fputs("</body></html>\n", out);
}

void vt_format_html(const struct vt_report *report, const struct vt_format_options *options,
		    FILE *out)
{
	vt_html_begin(out);
	vt_html_body(report, options, out);
	vt_html_end(out);
}
