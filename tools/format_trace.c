/* Chrome trace-event JSON, as Perfetto's UI and chrome://tracing open it:
 * per device a counter track of live bytes with each interval's highest
 * ("max") and lowest ("min") values, so troughs show beside peaks, one
 * stacked by tag (at each interval's highest), and instant marks at the
 * peak and at each failed allocation. The track closes with the bytes live
 * when the report was written. Times are in microseconds. */
#include <inttypes.h>

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

static void device_events(json_t *events, json_t *device, int64_t pid_base, const char *rank)
{
	int64_t ordinal = pid_base + vt_int(device, "ordinal");
	char process[300];
	snprintf(process, sizeof(process), "%s%s%sdevice %" PRId64 " (%s)", rank ? "rank " : "",
		 rank ? rank : "", rank ? ", " : "", vt_int(device, "ordinal"),
		 vt_str(device, "name", "unknown"));
	json_array_append_new(events,
			      json_pack("{s:s, s:s, s:I, s:{s:s}}", "name", "process_name", "ph",
					"M", "pid", ordinal, "args", "name", process));
	size_t i;
	json_t *row, *timeline = json_object_get(device, "timeline");
	json_t *rows = json_object_get(timeline, "rows");
	json_array_foreach (rows, i, row) {
		int64_t t = vt_int(row, "t_ns"), max = vt_int(row, "live_bytes");
		int64_t min = json_object_get(row, "min_bytes") ? vt_int(row, "min_bytes") : max;
		json_array_append_new(events,
				      counter("live bytes", ordinal, t,
					      json_pack("{s:I, s:I}", "max", max, "min", min)));
		json_array_append_new(events,
				      counter("live bytes by tag", ordinal, t,
					      json_deep_copy(json_object_get(row, "by_tag"))));
	}
	json_t *last = json_array_get(rows, json_array_size(rows) - 1);
	if (last && json_object_get(last, "end_bytes") && json_object_get(timeline, "end_ns")) {
		int64_t end = vt_int(last, "end_bytes");
		json_array_append_new(events,
				      counter("live bytes", ordinal, vt_int(timeline, "end_ns"),
					      json_pack("{s:I, s:I}", "max", end, "min", end)));
	}
	json_t *peak = json_object_get(device, "peak");
	if (vt_int(peak, "bytes"))
		json_array_append_new(events,
				      mark("peak", ordinal, vt_int(peak, "at_ns"),
					   json_pack("{s:I, s:s}", "bytes", vt_int(peak, "bytes"),
						     "api", vt_str(peak, "api", "?"))));
	json_t *failure;
	json_array_foreach (json_object_get(device, "failures"), i, failure) {
		json_array_append_new(
			events, mark("failed allocation", ordinal, vt_int(failure, "at_ns"),
				     json_pack("{s:I, s:I, s:s}", "bytes", vt_int(failure, "bytes"),
					       "error", vt_int(failure, "error"), "tag",
					       vt_str(failure, "tag", "untagged"))));
	}
}

void vt_trace_add(json_t *events, json_t *root, const struct vt_format_options *options,
		  int64_t pid_base)
{
	size_t i;
	json_t *device;
	json_array_foreach (json_object_get(root, "devices"), i, device) {
		if (vt_device_selected(device, options))
			device_events(events, device, pid_base, options->rank);
	}
}

void vt_format_trace(json_t *root, const struct vt_format_options *options, FILE *out)
{
	json_t *events = json_array();
	vt_trace_add(events, root, options, 0);
	json_t *document = json_pack("{s:o, s:s}", "traceEvents", events, "displayTimeUnit", "ms");
	json_dumpf(document, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(document);
}
