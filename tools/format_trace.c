/* Chrome trace-event JSON, as Perfetto's UI and chrome://tracing open it:
 * per device a counter track of live bytes with each interval's highest
 * ("max") and lowest ("min") values, so troughs show beside peaks, one
 * stacked by tag (at each interval's highest), and instant marks at the
 * peak and at each failed allocation. The track closes with the bytes live
 * when the report was written. Times are in microseconds. */
#include <inttypes.h>

#include "json_build.h"
#include "formats.h"

static json_t *counter(const char *name, int64_t device, int64_t t_ns, json_t *args)
{
	return json_pack("{s:s, s:s, s:I, s:I, s:f, s:o}", "name", name, "ph", "C", "pid", device,
			 "tid", (json_int_t)0, "ts", (double)t_ns / 1000.0, "args", args);
}

static json_t *mark(const char *name, int64_t device, int64_t t_ns, json_t *args)
{
	return json_pack("{s:s, s:s, s:s, s:I, s:I, s:f, s:o}", "name", name, "ph", "i", "s", "p",
			 "pid", device, "tid", (json_int_t)0, "ts", (double)t_ns / 1000.0, "args",
			 args);
}

static void device_events(json_t *events, const struct vt_owner *device, int64_t pid_base,
			  const char *rank)
{
	int64_t ordinal = pid_base + device->ordinal;
	char process[300];
	snprintf(process, sizeof(process), "%s%s%sdevice %" PRId64 " (%s)", rank ? "rank " : "",
		 rank ? rank : "", rank ? ", " : "", device->ordinal,
		 device->name ? device->name : "unknown");
	vt_json_push(events, json_pack("{s:s, s:s, s:I, s:{s:o}}", "name", "process_name", "ph",
				       "M", "pid", ordinal, "args", "name", vt_json_text(process)));
	const struct vt_timeline_model *timeline = &device->timeline;
	for (size_t i = 0; i < timeline->row_count; i++) {
		const struct vt_timeline_row_model *row = &timeline->rows[i];
		int64_t max = row->live_bytes;
		int64_t min = row->min_bytes.has ? row->min_bytes.value : max;
		vt_json_push(events, counter("live bytes", ordinal, row->t_ns,
					     json_pack("{s:I, s:I}", "max", max, "min", min)));
		vt_json_push(events, counter("live bytes by tag", ordinal, row->t_ns,
					     json_deep_copy(row->by_tag_json)));
	}
	const struct vt_timeline_row_model *last =
		timeline->row_count ? &timeline->rows[timeline->row_count - 1] : NULL;
	if (last && last->end_bytes.has && timeline->end_ns.has) {
		int64_t end = last->end_bytes.value;
		vt_json_push(events, counter("live bytes", ordinal, timeline->end_ns.value,
					     json_pack("{s:I, s:I}", "max", end, "min", end)));
	}
	const struct vt_peak *peak = &device->peak;
	if (peak->bytes)
		vt_json_push(events, mark("peak", ordinal, peak->at_ns,
					  json_pack("{s:I, s:s}", "bytes", peak->bytes, "api",
						    peak->api ? peak->api : "?")));
	for (size_t i = 0; i < device->failure_count; i++) {
		const struct vt_failure_model *failure = &device->failures[i];
		/* a request past 2^63-1 bytes keeps its digits, as a string */
		char digits[24];
		snprintf(digits, sizeof(digits), "%" PRIu64, failure->bytes);
		json_t *bytes = failure->bytes > INT64_MAX
					? json_string(digits)
					: json_integer((json_int_t)failure->bytes);
		vt_json_push(events,
			     mark("failed allocation", ordinal, failure->at_ns,
				  json_pack("{s:o, s:I, s:s, s:s}", "bytes", bytes, "error",
					    failure->error, "error_name",
					    failure->error_name ? failure->error_name : "?", "tag",
					    failure->tag ? failure->tag : "untagged")));
	}
}

void vt_trace_add(json_t *events, const struct vt_report_model *report,
		  const struct vt_format_options *options, int64_t pid_base)
{
	for (size_t i = 0; i < report->device_count; i++)
		if (vt_device_selected(&report->devices[i], options))
			device_events(events, &report->devices[i], pid_base, options->rank);
}

void vt_format_trace(const struct vt_report_model *report, const struct vt_format_options *options,
		     FILE *out)
{
	json_t *events = json_array();
	vt_trace_add(events, report, options, 0);
	json_t *document = json_pack("{s:o, s:s}", "traceEvents", events, "displayTimeUnit", "ms");
	vt_json_dump(document, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(document);
}
