/* vramtrace report: one report (or a merged one) rendered for people or
 * for other tools. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_build.h"
#include "cli.h"
#include "commands.h"
#include "formats.h"
#include "merged.h"
#include "options.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: vramtrace report FILE [OPTIONS]\n\n"
		"Renders a report written by libvramtrace (or merged by vramtrace merge).\n\n"
		"Options:\n"
		"  --format FORMAT  text (default): the whole report for people\n"
		"                   json: the report, re-indented\n"
		"                   folded: bytes at the peak as folded stacks for flame graphs\n"
		"                   trace: Chrome trace events for Perfetto or chrome://tracing\n"
		"                   html: one self-contained page with charts\n"
		"  --device N       only device N\n"
		"  --top N          rows of stacks, tags and leaks to show (default 20)\n"
		"  --frames N       text: lines of each stack, from the program's own line "
		"(default 4)\n"
		"  --all-frames     text: every frame of each stack, library frames unfolded\n"
		"  --budget SIZE    html: a budget line on the timelines, e.g. 80GiB\n"
		"  -o, --output OUT write to OUT instead of standard output\n"
		"  -h, --help       show this help\n\n"
		"Exit status: 0 when rendered, 2 for bad input or usage.\n");
}

typedef void (*format_fn)(const struct vt_report_model *, const struct vt_format_options *, FILE *);

static format_fn format_named(const char *name)
{
	static const struct {
		const char *name;
		format_fn fn;
	} formats[] = {{"text", vt_format_text},
		       {"json", vt_format_json},
		       {"folded", vt_format_folded},
		       {"trace", vt_format_trace},
		       {"html", vt_format_html}};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0)
			return formats[i].fn;
	return NULL;
}

static void merged_summary(const struct vt_merged *merged, FILE *out)
{
	char max[32], min[32], skew[32], max_rank[128], min_rank[128], name[1024];
	fprintf(out, "%zu ranks: peak max %s (rank %s), min %s (rank %s), skew %s\n",
		merged->rank_count, vt_human(merged->peak_max_bytes, max, sizeof(max)),
		vt_safe(merged->peak_max_rank, "?", max_rank, sizeof(max_rank)),
		vt_human(merged->peak_min_bytes, min, sizeof(min)),
		vt_safe(merged->peak_min_rank, "?", min_rank, sizeof(min_rank)),
		vt_human(merged->peak_skew_bytes, skew, sizeof(skew)));
	for (size_t i = 0; i < merged->tag_count; i++) {
		const struct vt_merged_tag *tag = &merged->tags[i];
		fprintf(out, "  %-24s at the peaks: %s summed, %s at most on one rank\n",
			vt_safe(tag->tag, "?", name, sizeof(name)),
			vt_human(tag->at_peak_sum_bytes, max, sizeof(max)),
			vt_human(tag->at_peak_max_bytes, min, sizeof(min)));
	}
}

/* The merged document with only --device's device in each rank, merged
 * again, so its summary (the peaks, skew and tags) speaks of that device
 * as the ranks it holds do (--device was left out of a merged report's
 * json, which gave every device); the document itself without --device.
 * NULL (remembered) when out of memory. */
static json_t *merged_selected(const struct vt_merged *merged,
			       const struct vt_format_options *options)
{
	if (options->device < 0)
		return json_incref(merged->root);
	struct vt_report_file *files = calloc(merged->rank_count, sizeof(*files));
	bool ok = files != NULL;
	for (size_t i = 0; ok && i < merged->rank_count; i++) {
		files[i].path = merged->ranks[i].file;
		files[i].root = vt_selected_document(&merged->ranks[i].report, options);
		ok = files[i].root && vt_report_model_fill(files[i].root, &files[i].report);
	}
	json_t *document = vt_json_checked(ok ? vt_merge(files, merged->rank_count) : NULL);
	for (size_t i = 0; files && i < merged->rank_count; i++)
		vt_report_close(&files[i]);
	free(files);
	return document;
}

/* A merged report: what the ranks say together, then each rank's own
 * report, all in one document of the format. */
static void render_merged(const struct vt_merged *merged, format_fn format,
			  struct vt_format_options *options, FILE *out)
{
	if (format == vt_format_json) {
		vt_print_json(merged->root, out);
		return;
	}
	json_t *events = json_array();
	if (format == vt_format_text)
		merged_summary(merged, out);
	if (format == vt_format_html)
		vt_html_begin(out);
	for (size_t i = 0; i < merged->rank_count; i++) {
		const struct vt_rank *rank = &merged->ranks[i];
		const char *file = rank->file ? rank->file : "?";
		char name[64];
		snprintf(name, sizeof(name), "%s", rank->rank ? rank->rank : file);
		options->rank = name;
		if (format == vt_format_text) {
			fputs("\n== rank ", out);
			vt_print_safe(out, name);
			fputs(" (", out);
			vt_print_safe(out, file);
			fputs(") ==\n", out);
		}
		if (format == vt_format_trace)
			/* ordinals are below 65536 (checked on load): each rank's
			 * devices get pids of their own, the same on every run */
			vt_trace_add(events, &rank->report, options, (int64_t)i * 65536);
		else if (format == vt_format_html)
			vt_html_body(&rank->report, options, out);
		else
			format(&rank->report, options, out);
	}
	options->rank = NULL;
	if (format == vt_format_html)
		vt_html_end(out);
	if (format == vt_format_trace) {
		json_t *document =
			json_pack("{s:O, s:s}", "traceEvents", events, "displayTimeUnit", "ms");
		vt_json_dump(document, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
		fputc('\n', out);
		json_decref(document);
	}
	json_decref(events);
}

/* With --device, the ranks narrowed to that device and merged again, so
 * that the summary (the text's peaks and tags, the json's) speaks of the
 * device shown: it gave every device's, 52 GiB of weights summed over the
 * ranks beside ranks holding 13 GiB each on the device asked for. */
static void render_selected(const struct vt_merged *merged, format_fn format,
			    struct vt_format_options *options, FILE *out)
{
	json_t *document = merged_selected(merged, options);
	struct vt_merged narrowed = {0};
	if (document && vt_merged_model_fill(document, &narrowed))
		render_merged(&narrowed, format, options, out);
	else
		vt_json_checked(NULL); /* out of memory: nothing is passed off as whole */
	vt_merged_model_free(&narrowed);
	json_decref(document);
}

static const struct vt_option report_options[] = {
	{"format", 0, VT_OPTION_VALUE, 'f', "FORMAT: text, json, folded, trace or html", NULL},
	{"device", 0, VT_OPTION_VALUE, 'd', "N, a device ordinal", NULL},
	{"top", 0, VT_OPTION_VALUE, 't', "N, rows to show", NULL},
	{"output", 'o', VT_OPTION_VALUE, 'o', "OUT, a file (- for standard output)", NULL},
	{"budget", 0, VT_OPTION_VALUE, 'b', "SIZE, e.g. 80GiB", NULL},
	{"frames", 0, VT_OPTION_VALUE, 'F', "N, lines of each stack", NULL},
	{"all-frames", 0, VT_OPTION_FLAG, 'A', NULL, NULL},
	{"help", 'h', VT_OPTION_FLAG, 'h', NULL, NULL},
};

struct report_request {
	const char *file, *output;
	format_fn format;
	struct vt_format_options options;
};

static bool report_option(int id, const char *value, struct report_request *r)
{
	switch (id) {
	case 'f':
		r->format = format_named(value);
		if (!r->format)
			vt_usage_error("report",
				       "unknown format '%s' (text, json, folded, trace or html)",
				       value);
		return r->format != NULL;
	case 'd':
		return vt_parse_count_option("report", "--device", value, 0, 1023,
					     &r->options.device);
	case 't':
		r->options.top_given = true;
		return vt_parse_count_option("report", "--top", value, 1, 100000, &r->options.top);
	case 'b':
		return vt_parse_size_option("report", "--budget", value, UINT64_MAX,
					    &r->options.budget);
	case 'F':
		return vt_parse_count_option("report", "--frames", value, 1, 64,
					     &r->options.view.frames);
	case 'A': r->options.view.all_frames = true; return true;
	default: r->output = value; return true;
	}
}

/* Returns -1 to go on, or the exit status. */
static int parse(int argc, char **argv, struct report_request *r)
{
	struct vt_arguments arguments;
	vt_arguments_init(&arguments, "report", usage, argc, argv, report_options,
			  sizeof(report_options) / sizeof(report_options[0]));
	const char *value;
	for (int id; (id = vt_arguments_next(&arguments, &value)) != VT_ARGUMENT_END;) {
		if (id <= VT_ARGUMENT_ERROR)
			return vt_arguments_exit(id);
		if (id == VT_ARGUMENT_OPERAND && r->file) {
			vt_usage_error("report", "give one report file, not '%s' too", value);
			return VT_EXIT_BAD_INPUT;
		}
		if (id == VT_ARGUMENT_OPERAND)
			r->file = value;
		else if (!report_option(id, value, r))
			return VT_EXIT_BAD_INPUT;
	}
	if (!r->file) {
		vt_usage_error("report", "give a report file");
		return VT_EXIT_BAD_INPUT;
	}
	return -1;
}

int vt_command_report(int argc, char **argv)
{
	struct report_request request = {.format = vt_format_text,
					 .options = {.device = -1, .top = 20}};
	int done = parse(argc, argv, &request);
	if (done >= 0)
		return done;
	struct vt_format_options options = request.options;
	format_fn format = request.format;
	const char *output = request.output;
	if (options.budget && format != vt_format_html) {
		vt_usage_error("report", "--budget draws a line on the html page only; for the "
					 "peak against a budget, use vramtrace check FILE --budget "
					 "SIZE");
		return VT_EXIT_BAD_INPUT;
	}
	if (format == vt_format_html && !output && isatty(STDOUT_FILENO)) {
		vt_usage_error("report", "an HTML page is not for the terminal: give -o FILE.html "
					 "(or -o - for standard output)");
		return VT_EXIT_BAD_INPUT;
	}
	if (!vt_cli_output_apart("report", output, &request.file, 1))
		return VT_EXIT_BAD_INPUT;
	struct vt_report_file report;
	char error[1024];
	if (!vt_report_load(request.file, &report, error, sizeof(error))) {
		vt_diagnostic("vramtrace report: %s", error);
		return VT_EXIT_BAD_INPUT;
	}
	if (!vt_need_device("report", &report, options.device)) {
		vt_report_close(&report);
		return VT_EXIT_BAD_INPUT;
	}
	struct vt_cli_output out;
	if (!vt_cli_output_open(&out, output, "report")) {
		vt_report_close(&report);
		return VT_EXIT_BAD_INPUT;
	}
	options.color = format == vt_format_text && !output && vt_color_wanted(stdout);
	if (report.merged)
		render_selected(&report.ranks, format, &options, out.stream);
	else
		format(&report.report, &options, out.stream);
	vt_report_close(&report);
	return vt_cli_output_commit(&out, "report") ? VT_EXIT_OK : VT_EXIT_BAD_INPUT;
}
