/* One self-contained HTML page: no script, no network. Per device a
 * timeline stacked by tag with the peak marked, the tag table, an icicle
 * of the top stacks at the peak, the OOM snapshots and the leaks; the run's
 * metadata on top. Charts are inline SVG drawn here. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"

#define CHART_WIDTH  960
#define CHART_HEIGHT 220
#define ICICLE_ROW   18
#define ICICLE_DEPTH 14
#define MAX_SERIES   12

static const char *const palette[MAX_SERIES] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#86bcb6", "#d37295",
};

static void escape(FILE *out, const char *text)
{
	for (const char *p = text ? text : ""; *p; p++) {
		switch (*p) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*p, out);
		}
	}
}

void vt_html_begin(FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<title>vramtrace report</title>\n<style>\n"
	      "body{font:14px system-ui,sans-serif;margin:24px;color:#222}\n"
	      "h1{font-size:20px}h2{font-size:17px;margin-top:32px}h3{font-size:15px}\n"
	      "table{border-collapse:collapse;margin:8px 0}"
	      "td,th{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}\n"
	      "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	      "svg{display:block;margin:8px 0}.meta td:first-child{color:#666}\n"
	      "code{font-size:12px}.fail{color:#b00}\n</style></head><body>\n"
	      "<h1>vramtrace report</h1>\n",
	      out);
}

static void run_table(FILE *out, json_t *root)
{
	json_t *run = json_object_get(root, "run");
	fputs("<h2>run</h2>\n<table class=\"meta\">\n<tr><td>command</td><td><code>", out);
	size_t i;
	json_t *value;
	json_array_foreach (json_object_get(run, "command"), i, value) {
		escape(out, json_string_value(value));
		fputc(' ', out);
	}
	fputs("</code></td></tr>\n", out);
	const char *key;
	json_object_foreach (json_object_get(run, "labels"), key, value) {
		fputs("<tr><td>label ", out);
		escape(out, key);
		fputs("</td><td>", out);
		escape(out, json_string_value(value));
		fputs("</td></tr>\n", out);
	}
	fprintf(out, "<tr><td>process</td><td>%" PRId64 " on ", vt_int(run, "pid"));
	escape(out, vt_str(run, "host", "?"));
	fputs("</td></tr>\n<tr><td>time</td><td>", out);
	escape(out, vt_str(run, "start", "?"));
	fputs(" to ", out);
	escape(out, vt_str(run, "end", "?"));
	fputs(", ended by ", out);
	escape(out, vt_str(run, "ended_by", "?"));
	fputs("</td></tr>\n</table>\n", out);
}

/* The tags drawn as series: the largest at the peak, the rest as "other". */
static unsigned series_of(json_t *device, const char **names)
{
	unsigned count = 0;
	size_t i;
	json_t *tag;
	json_array_foreach (json_object_get(device, "tags"), i, tag) {
		if (count == MAX_SERIES - 1)
			break;
		names[count++] = vt_str(tag, "tag", "untagged");
	}
	return count;
}

static int64_t row_series(json_t *row, const char **names, unsigned count, unsigned s)
{
	json_t *by_tag = json_object_get(row, "by_tag");
	if (s < count)
		return vt_int(by_tag, names[s]);
	int64_t rest = 0; /* "other": every tag not drawn on its own */
	const char *key;
	json_t *value;
	json_object_foreach (by_tag, key, value) {
		bool named = false;
		for (unsigned n = 0; n < count; n++)
			named = named || strcmp(names[n], key) == 0;
		if (!named)
			rest += json_integer_value(value);
	}
	return rest;
}

/* The time axis runs from the first row to the end of the last one. */
struct axis {
	int64_t start, end;
};

static double x_of(int64_t t, struct axis axis)
{
	int64_t span = axis.end - axis.start;
	return span > 0 ? (double)(t - axis.start) * CHART_WIDTH / (double)span : 0.0;
}

static double y_of(int64_t bytes, int64_t top)
{
	return CHART_HEIGHT - (top > 0 ? (double)bytes * CHART_HEIGHT / (double)top : 0.0);
}

static void timeline(FILE *out, json_t *device)
{
	json_t *rows = json_object_get(json_object_get(device, "timeline"), "rows");
	json_t *peak = json_object_get(device, "peak");
	size_t n = json_array_size(rows);
	if (n == 0)
		return;
	int64_t top = vt_int(peak, "bytes") ? vt_int(peak, "bytes") : 1;
	json_t *timeline_object = json_object_get(device, "timeline");
	struct axis end = {vt_int(json_array_get(rows, 0), "t_ns"),
			   vt_int(json_array_get(rows, n - 1), "t_ns") +
				   vt_int(timeline_object, "interval_ns") + 1};
	const char *names[MAX_SERIES];
	unsigned count = series_of(device, names);
	fprintf(out,
		"<h3>live bytes over time, by tag</h3>\n<svg width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" role=\"img\">\n",
		CHART_WIDTH, CHART_HEIGHT + 20, CHART_WIDTH, CHART_HEIGHT + 20);
	/* Stacked areas, drawn as one column per row. */
	for (size_t i = 0; i < n; i++) {
		json_t *row = json_array_get(rows, i);
		double x = x_of(vt_int(row, "t_ns"), end);
		double next = i + 1 < n ? x_of(vt_int(json_array_get(rows, i + 1), "t_ns"), end)
					: CHART_WIDTH;
		int64_t base = 0;
		for (unsigned s = 0; s <= count; s++) {
			int64_t bytes = row_series(row, names, count, s);
			if (bytes <= 0)
				continue;
			fprintf(out,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"fill=\"%s\"/>\n",
				x, y_of(base + bytes, top), next - x + 0.3,
				y_of(base, top) - y_of(base + bytes, top), palette[s % MAX_SERIES]);
			base += bytes;
		}
	}
	fputs("<polyline fill=\"none\" stroke=\"#222\" stroke-width=\"1\" points=\"", out);
	for (size_t i = 0; i < n; i++) {
		json_t *row = json_array_get(rows, i);
		fprintf(out, "%.1f,%.1f ", x_of(vt_int(row, "t_ns"), end),
			y_of(vt_int(row, "live_bytes"), top));
	}
	fputs("\"/>\n", out);
	double peak_x = x_of(vt_int(peak, "at_ns"), end);
	char size[32];
	fprintf(out,
		"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%d\" stroke=\"#b00\" "
		"stroke-dasharray=\"4 3\"/><text x=\"%.1f\" y=\"%d\" fill=\"#b00\" "
		"font-size=\"12\">peak %s</text>\n</svg>\n",
		peak_x, peak_x, CHART_HEIGHT, peak_x + 4, CHART_HEIGHT + 14,
		vt_human(vt_int(peak, "bytes"), size, sizeof(size)));
	fputs("<p>", out);
	bool others = json_array_size(json_object_get(device, "tags")) > count;
	for (unsigned s = 0; s < count + (others ? 1 : 0); s++) {
		fprintf(out, "<span style=\"color:%s\">&#9632;</span> ", palette[s % MAX_SERIES]);
		escape(out, s < count ? names[s] : "other");
		fputs(" &nbsp; ", out);
	}
	fputs("</p>\n", out);
}

static void tag_table(FILE *out, json_t *device)
{
	char at[32], own[32], live[32];
	fputs("<h3>tags at the peak</h3>\n<table><tr><th>tag</th><th>at the peak</th>"
	      "<th>own peak</th><th>live at exit</th><th>allocations</th></tr>\n",
	      out);
	size_t i;
	json_t *tag;
	json_array_foreach (json_object_get(device, "tags"), i, tag) {
		fputs("<tr><td>", out);
		escape(out, vt_str(tag, "tag", "?"));
		fprintf(out,
			"</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td><td class=\"n\">%" PRId64 "</td></tr>\n",
			vt_human(vt_int(tag, "at_peak_bytes"), at, sizeof(at)),
			vt_human(vt_int(tag, "peak_bytes"), own, sizeof(own)),
			vt_human(vt_int(tag, "live_at_exit_bytes"), live, sizeof(live)),
			vt_int(tag, "allocations"));
	}
	fputs("</table>\n", out);
}

/* The icicle: a tree of frames, outermost at the top, bytes as width. */
struct node {
	char *name;
	int64_t bytes;
	struct node *child;
	struct node *next;
};

static struct node *child_named(struct node *parent, const char *name)
{
	for (struct node *n = parent->child; n; n = n->next)
		if (strcmp(n->name, name) == 0)
			return n;
	struct node *n = calloc(1, sizeof(*n));
	if (!n || !(n->name = strdup(name))) {
		free(n);
		return NULL;
	}
	n->next = parent->child;
	parent->child = n;
	return n;
}

static void add_stack(struct node *root, json_t *report, json_t *stack)
{
	int64_t bytes = vt_int(stack, "at_peak_bytes");
	struct node *node = child_named(root, vt_str(stack, "tag", "untagged"));
	if (!node || bytes <= 0)
		return;
	root->bytes += bytes;
	node->bytes += bytes;
	json_t *frames = vt_stack_frames_of(report, vt_int(stack, "id"));
	char label[1200];
	unsigned depth = 1;
	for (size_t i = json_array_size(frames); i-- > 0 && node && depth < ICICLE_DEPTH;) {
		json_t *frame = json_array_get(frames, i);
		if (vt_frame_is_plumbing(frame))
			continue;
		node = child_named(node, vt_frame_label(frame, label, sizeof(label)));
		if (node)
			node->bytes += bytes;
		depth++;
	}
}

static int larger_first(const void *a, const void *b)
{
	const struct node *x = *(struct node *const *)a, *y = *(struct node *const *)b;
	return x->bytes != y->bytes ? (x->bytes < y->bytes ? 1 : -1) : strcmp(x->name, y->name);
}

/* Children largest first, so the icicle reads left to right by size. */
static void sort_children(struct node *node)
{
	size_t count = 0;
	for (struct node *c = node->child; c; c = c->next)
		count++;
	struct node **items = count ? calloc(count, sizeof(*items)) : NULL;
	if (!items)
		return;
	size_t i = 0;
	for (struct node *c = node->child; c; c = c->next)
		items[i++] = c;
	qsort(items, count, sizeof(*items), larger_first);
	node->child = items[0];
	for (i = 0; i < count; i++) {
		items[i]->next = i + 1 < count ? items[i + 1] : NULL;
		sort_children(items[i]);
	}
	free(items);
}

static unsigned depth_of(const struct node *node)
{
	unsigned deepest = 0;
	for (const struct node *c = node->child; c; c = c->next) {
		unsigned d = depth_of(c);
		if (d > deepest)
			deepest = d;
	}
	return deepest + 1;
}

/* A tag's colour, the same as in the timeline's legend. */
static unsigned color_of(const char *tag, const char *const *names, unsigned count)
{
	for (unsigned n = 0; n < count; n++)
		if (strcmp(names[n], tag) == 0)
			return n;
	return count;
}

static void draw(FILE *out, const struct node *node, double x, double width, unsigned depth,
		 unsigned color, const char *const *names, unsigned count)
{
	char size[32];
	fputs("<g><title>", out);
	escape(out, node->name);
	fprintf(out,
		": %s</title><rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"%d\" "
		"fill=\"%s\" stroke=\"#fff\"/>",
		vt_human(node->bytes, size, sizeof(size)), x, depth * ICICLE_ROW,
		width > 0.5 ? width - 0.5 : width, ICICLE_ROW - 1, palette[color % MAX_SERIES]);
	if (width > 60) {
		fprintf(out, "<text x=\"%.1f\" y=\"%u\" font-size=\"11\" fill=\"#fff\">", x + 3,
			depth * ICICLE_ROW + 13);
		escape(out, node->name);
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
	double child_x = x;
	for (const struct node *c = node->child; c; c = c->next) {
		double child_width =
			node->bytes ? width * (double)c->bytes / (double)node->bytes : 0;
		unsigned child_color = depth == 0 ? color_of(c->name, names, count) : color;
		draw(out, c, child_x, child_width, depth + 1, child_color, names, count);
		child_x += child_width;
	}
}

static void free_tree(struct node *node)
{
	while (node) {
		struct node *next = node->next;
		free_tree(node->child);
		free(node->name);
		free(node);
		node = next;
	}
}

static void icicle(FILE *out, json_t *report, json_t *device, long top)
{
	struct node root = {.name = "all"};
	size_t i;
	json_t *stack;
	json_array_foreach (json_object_get(device, "stacks"), i, stack) {
		if ((long)i < top)
			add_stack(&root, report, stack);
	}
	if (!root.child)
		return;
	sort_children(&root);
	const char *names[MAX_SERIES];
	unsigned count = series_of(device, names);
	fprintf(out,
		"<h3>top stacks at the peak</h3>\n<svg width=\"%d\" height=\"%u\" "
		"role=\"img\">\n",
		CHART_WIDTH, depth_of(&root) * ICICLE_ROW);
	draw(out, &root, 0, CHART_WIDTH, 0, count, names, count);
	fputs("</svg>\n", out);
	free_tree(root.child);
}

static void failures(FILE *out, json_t *device)
{
	json_t *list = json_object_get(device, "failures");
	if (!json_array_size(list))
		return;
	char size[32];
	fputs("<h3 class=\"fail\">failed allocations</h3>\n<ul>\n", out);
	size_t i;
	json_t *failure;
	json_array_foreach (list, i, failure) {
		fprintf(out, "<li>%s by ", vt_human(vt_int(failure, "bytes"), size, sizeof(size)));
		escape(out, vt_str(failure, "api", "?"));
		fputs(" [", out);
		escape(out, vt_str(failure, "tag", "untagged"));
		fprintf(out, "], error %" PRId64 " ", vt_int(failure, "error"));
		escape(out, vt_str(failure, "error_name", ""));
		const char *tag;
		json_t *bytes;
		json_t *snapshot = json_object_get(failure, "snapshot");
		if (json_is_object(snapshot)) {
			fputs("<br>live then:", out);
			json_object_foreach (json_object_get(snapshot, "live_by_tag"), tag, bytes) {
				fputc(' ', out);
				escape(out, tag);
				fprintf(out, " %s;",
					vt_human(json_integer_value(bytes), size, sizeof(size)));
			}
		}
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

static void leaks(FILE *out, json_t *device, long top)
{
	char size[32];
	fprintf(out, "<h3>live at exit: %s</h3>\n",
		vt_human(vt_int(device, "live_at_exit_bytes"), size, sizeof(size)));
	json_t *list = json_object_get(device, "leaks");
	if (!json_array_size(list))
		return;
	fputs("<table><tr><th>tag</th><th>stack</th><th>allocations</th><th>bytes</th></tr>\n",
	      out);
	size_t i;
	json_t *leak;
	json_array_foreach (list, i, leak) {
		if ((long)i >= top)
			break;
		fputs("<tr><td>", out);
		escape(out, vt_str(leak, "tag", "?"));
		fprintf(out,
			"</td><td class=\"n\">#%" PRId64 "</td><td class=\"n\">%" PRId64
			"</td><td class=\"n\">%s</td></tr>\n",
			vt_int(leak, "stack"), vt_int(leak, "count"),
			vt_human(vt_int(leak, "bytes"), size, sizeof(size)));
	}
	fputs("</table>\n", out);
}

void vt_html_body(json_t *root, const struct vt_format_options *options, FILE *out)
{
	if (options->rank) {
		fputs("<h1>rank ", out);
		escape(out, options->rank);
		fputs("</h1>\n", out);
	}
	run_table(out, root);
	size_t i;
	json_t *device;
	char size[32], capacity[32];
	json_array_foreach (json_object_get(root, "devices"), i, device) {
		if (!vt_device_selected(device, options))
			continue;
		fprintf(out, "<h2>device %" PRId64 ": ", vt_int(device, "ordinal"));
		escape(out, vt_str(device, "name", "unknown"));
		fprintf(out, " (%s) &mdash; peak %s</h2>\n",
			vt_human(vt_int(device, "capacity_bytes"), capacity, sizeof(capacity)),
			vt_human(vt_int(json_object_get(device, "peak"), "bytes"), size,
				 sizeof(size)));
		timeline(out, device);
		tag_table(out, device);
		icicle(out, root, device, options->top);
		failures(out, device);
		leaks(out, device, options->top);
	}
}

void vt_html_end(FILE *out)
{
	fputs("</body></html>\n", out);
}

void vt_format_html(json_t *root, const struct vt_format_options *options, FILE *out)
{
	vt_html_begin(out);
	vt_html_body(root, options, out);
	vt_html_end(out);
}
