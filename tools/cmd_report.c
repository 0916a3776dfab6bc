/* vramtrace report: one report (or a merged one) rendered for people or
 * for other tools. */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "formats.h"
#include "merged.h"

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
		"  --budget SIZE    html: a budget line on the timelines, e.g. 80GiB\n"
		"  -o, --output OUT write to OUT instead of standard output\n"
		"  -h, --help       show this help\n\n"
		"Exit status: 0 when rendered, 2 for bad input or usage.\n");
}

typedef void (*format_fn)(const struct vt_report *, const struct vt_format_options *, FILE *);

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
	char max[32], min[32], skew[32];
	fprintf(out, "%zu ranks: peak max %s (rank %s), min %s (rank %s), skew %s\n",
		merged->rank_count, vt_human(merged->peak_max_bytes, max, sizeof(max)),
		merged->peak_max_rank ? merged->peak_max_rank : "?",
		vt_human(merged->peak_min_bytes, min, sizeof(min)),
		merged->peak_min_rank ? merged->peak_min_rank : "?",
		vt_human(merged->peak_skew_bytes, skew, sizeof(skew)));
	for (size_t i = 0; i < merged->tag_count; i++) {
		const struct vt_merged_tag *tag = &merged->tags[i];
		fprintf(out, "  %-24s at the peaks: %s summed, %s at most on one rank\n",
			tag->tag ? tag->tag : "?",
			vt_human(tag->at_peak_sum_bytes, max, sizeof(max)),
			vt_human(tag->at_peak_max_bytes, min, sizeof(min)));
	}
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
		if (format == vt_format_text)
			fprintf(out, "\n== rank %s (%s) ==\n", name, file);
		if (format == vt_format_trace)
			vt_trace_add(events, &rank->report, options, (int64_t)i * 1000);
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
		json_dumpf(document, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
		fputc('\n', out);
		json_decref(document);
	}
	json_decref(events);
}

int vt_command_report(int argc, char **argv)
{
	static const struct option long_options[] = {
		{"format", required_argument, NULL, 'f'},
		{"device", required_argument, NULL, 'd'},
		{"top", required_argument, NULL, 't'},
		{"output", required_argument, NULL, 'o'},
		{"budget", required_argument, NULL, 'b'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct vt_format_options options = {.device = -1, .top = 20};
	format_fn format = vt_format_text;
	const char *output = NULL;
	opterr = 0;
	optind = 1;
	for (int c; (c = getopt_long(argc, argv, "o:h", long_options, NULL)) != -1;) {
		switch (c) {
		case 'f':
			format = format_named(optarg);
			if (!format) {
				fprintf(stderr,
					"vramtrace report: unknown format '%s' (text, json, "
					"folded, trace or html)\n",
					optarg);
				return VT_EXIT_BAD_INPUT;
			}
			break;
		case 'd':
			if (!vt_parse_count_option("report", "--device", optarg, 0, 1023,
						   &options.device))
				return VT_EXIT_BAD_INPUT;
			break;
		case 't':
			if (!vt_parse_count_option("report", "--top", optarg, 1, 100000,
						   &options.top))
				return VT_EXIT_BAD_INPUT;
			break;
		case 'b':
			if (!vt_parse_size_option("report", "--budget", optarg, &options.budget))
				return VT_EXIT_BAD_INPUT;
			break;
		case 'o': output = optarg; break;
		case 'h': usage(stdout); return VT_EXIT_OK;
		default:
			fprintf(stderr, "vramtrace report: unknown or incomplete option '%s'\n",
				argv[optind - 1]);
			usage(stderr);
			return VT_EXIT_BAD_INPUT;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "vramtrace report: give exactly one report file\n");
		usage(stderr);
		return VT_EXIT_BAD_INPUT;
	}
	struct vt_report_file report;
	char error[1024];
	if (!vt_report_load(argv[optind], &report, error, sizeof(error))) {
		fprintf(stderr, "vramtrace report: %s\n", error);
		return VT_EXIT_BAD_INPUT;
	}
	struct vt_output out;
	if (!vt_output_open(&out, output, "report")) {
		vt_report_close(&report);
		return VT_EXIT_BAD_INPUT;
	}
	options.color = format == vt_format_text && !output && vt_color_wanted(stdout);
	if (report.merged)
		render_merged(&report.ranks, format, &options, out.stream);
	else
		format(&report.report, &options, out.stream);
	vt_report_close(&report);
	return vt_output_commit(&out, "report") ? VT_EXIT_OK : VT_EXIT_BAD_INPUT;
}
