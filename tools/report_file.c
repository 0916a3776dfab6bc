#include "report_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The first structural problem found, with the path of the field. */
struct checker {
	char *error;
	size_t size;
	bool failed;
	size_t frame_table_size; /* the report's "frames", which stacks index */
};

static bool fail(struct checker *c, const char *format, ...) __attribute__((format(printf, 2, 3)));

static bool fail(struct checker *c, const char *format, ...)
{
	if (c->failed)
		return false;
	va_list args;
	va_start(args, format);
	vsnprintf(c->error, c->size, format, args);
	va_end(args);
	c->failed = true;
	return false;
}

static bool need_object(struct checker *c, json_t *value, const char *path)
{
	return json_is_object(value) || fail(c, "%s: expected an object", path);
}

static bool need_array(struct checker *c, json_t *value, const char *path)
{
	return json_is_array(value) || fail(c, "%s: expected an array", path);
}

/* A byte count, count or time: a non-negative integer, below 2^62 so that
 * sums over ranks and devices cannot overflow (no GPU holds an exabyte). */
static bool is_count(json_t *value)
{
	return json_is_integer(value) && json_integer_value(value) >= 0 &&
	       json_integer_value(value) < VT_MAX_COUNT;
}

static bool need_count(struct checker *c, json_t *object, const char *key, const char *path)
{
	return is_count(json_object_get(object, key)) ||
	       fail(c, "%s.%s: expected a non-negative integer below 2^62", path, key);
}

static bool need_counts(struct checker *c, json_t *object, const char *const *keys,
			const char *path)
{
	for (; *keys; keys++)
		if (!need_count(c, object, *keys, path))
			return false;
	return true;
}

static bool need_string_or_null(struct checker *c, json_t *object, const char *key,
				const char *path)
{
	json_t *value = json_object_get(object, key);
	return !value || json_is_string(value) || json_is_null(value) ||
	       fail(c, "%s.%s: expected a string", path, key);
}

static bool need_string(struct checker *c, json_t *object, const char *key, const char *path)
{
	return json_is_string(json_object_get(object, key)) ||
	       fail(c, "%s.%s: expected a string", path, key);
}

static bool need_count_or_null(struct checker *c, json_t *object, const char *key, const char *path)
{
	json_t *value = json_object_get(object, key);
	return !value || json_is_null(value) || need_count(c, object, key, path);
}

/* Each element of object[key] (an array of objects) passes check. */
static bool each(struct checker *c, json_t *object, const char *key, const char *path,
		 bool (*check)(struct checker *, json_t *, const char *))
{
	json_t *array = json_object_get(object, key);
	char where[256];
	snprintf(where, sizeof(where), "%s.%s", path, key);
	if (!need_array(c, array, where))
		return false;
	size_t i;
	json_t *item;
	json_array_foreach (array, i, item) {
		snprintf(where, sizeof(where), "%s.%s[%zu]", path, key, i);
		if (!need_object(c, item, where) || !check(c, item, where))
			return false;
	}
	return true;
}

static const char *const counter_fields[] = {"peak_bytes",  "at_peak_bytes", "live_at_exit_bytes",
					     "allocations", "frees",         "bytes_allocated",
					     NULL};

static bool check_kind(struct checker *c, json_t *item, const char *path)
{
	return need_string(c, item, "kind", path) && need_counts(c, item, counter_fields, path);
}

static bool check_tag(struct checker *c, json_t *item, const char *path)
{
	return need_string(c, item, "tag", path) && need_counts(c, item, counter_fields, path);
}

static bool check_stack(struct checker *c, json_t *item, const char *path)
{
	return need_count(c, item, "id", path) && need_string(c, item, "tag", path) &&
	       need_counts(c, item, counter_fields, path);
}

static bool check_leak(struct checker *c, json_t *item, const char *path)
{
	static const char *const fields[] = {"count", "bytes", NULL};
	return need_count_or_null(c, item, "stack", path) && need_string(c, item, "tag", path) &&
	       need_counts(c, item, fields, path);
}

static bool check_top_stack(struct checker *c, json_t *item, const char *path)
{
	return need_count(c, item, "stack", path) && need_count(c, item, "bytes", path);
}

static bool check_snapshot(struct checker *c, json_t *failure, const char *path)
{
	json_t *snapshot = json_object_get(failure, "snapshot");
	if (!snapshot || json_is_null(snapshot))
		return true;
	char where[256];
	snprintf(where, sizeof(where), "%s.snapshot", path);
	json_t *by_tag = json_object_get(snapshot, "live_by_tag");
	if (!need_object(c, snapshot, where) || !need_object(c, by_tag, where))
		return false;
	const char *key;
	json_t *value;
	json_object_foreach (by_tag, key, value) {
		if (!is_count(value))
			return fail(c,
				    "%s.live_by_tag.%s: expected a non-negative integer below "
				    "2^62",
				    where, key);
	}
	return each(c, snapshot, "top_stacks", where, check_top_stack);
}

static bool check_failure(struct checker *c, json_t *item, const char *path)
{
	static const char *const fields[] = {"bytes", "at_ns", "live_bytes", NULL};
	return need_counts(c, item, fields, path) &&
	       (json_is_integer(json_object_get(item, "error")) ||
		fail(c, "%s.error: expected an integer", path)) &&
	       need_string_or_null(c, item, "api", path) &&
	       need_string_or_null(c, item, "tag", path) &&
	       need_count_or_null(c, item, "stack", path) && check_snapshot(c, item, path);
}

/* min_bytes, max_bytes and end_bytes came later: reports before them have
 * live_bytes alone, the highest of the interval. */
static bool check_row(struct checker *c, json_t *item, const char *path)
{
	static const char *const fields[] = {"t_ns", "live_bytes", NULL};
	json_t *by_tag = json_object_get(item, "by_tag");
	if (!need_counts(c, item, fields, path) || !need_object(c, by_tag, path) ||
	    !need_count_or_null(c, item, "min_bytes", path) ||
	    !need_count_or_null(c, item, "max_bytes", path) ||
	    !need_count_or_null(c, item, "end_bytes", path))
		return false;
	const char *key;
	json_t *value;
	json_object_foreach (by_tag, key, value) {
		if (!is_count(value))
			return fail(c, "%s.by_tag.%s: expected a non-negative integer below 2^62",
				    path, key);
	}
	return true;
}

static bool check_timeline(struct checker *c, json_t *owner, const char *path)
{
	json_t *timeline = json_object_get(owner, "timeline");
	if (!timeline)
		return true;
	char where[256];
	snprintf(where, sizeof(where), "%s.timeline", path);
	return need_object(c, timeline, where) && need_count(c, timeline, "interval_ns", where) &&
	       need_count_or_null(c, timeline, "end_ns", where) &&
	       each(c, timeline, "rows", where, check_row);
}

static bool check_crossing(struct checker *c, json_t *item, const char *path)
{
	static const char *const fields[] = {"at_ns", "event", "live_bytes", NULL};
	return need_counts(c, item, fields, path) && check_snapshot(c, item, path);
}

/* peak_since_reset and watermark: null, or absent in older reports. */
static bool check_levels(struct checker *c, json_t *device, const char *path)
{
	static const char *const interval_fields[] = {"since_ns", "bytes", "at_ns", NULL};
	static const char *const watermark_fields[] = {"high_bytes", "low_bytes", NULL};
	char where[256];
	json_t *interval = json_object_get(device, "peak_since_reset");
	snprintf(where, sizeof(where), "%s.peak_since_reset", path);
	if (interval && !json_is_null(interval) &&
	    !(need_object(c, interval, where) && need_counts(c, interval, interval_fields, where)))
		return false;
	json_t *watermark = json_object_get(device, "watermark");
	snprintf(where, sizeof(where), "%s.watermark", path);
	return !watermark || json_is_null(watermark) ||
	       (need_object(c, watermark, where) &&
		need_counts(c, watermark, watermark_fields, where) &&
		each(c, watermark, "crossings", where, check_crossing));
}

/* The fields a device and the host section share. */
static bool check_totals(struct checker *c, json_t *owner, const char *path)
{
	static const char *const fields[] = {
		"live_at_exit_bytes", "live_at_exit_allocations", "allocations", "frees",
		"failed_allocations", "bytes_allocated",          NULL};
	static const char *const peak_fields[] = {"bytes", "at_ns", NULL};
	char where[256];
	snprintf(where, sizeof(where), "%s.peak", path);
	json_t *peak = json_object_get(owner, "peak");
	return need_object(c, peak, where) && need_counts(c, peak, peak_fields, where) &&
	       need_string_or_null(c, peak, "api", where) && need_counts(c, owner, fields, path) &&
	       each(c, owner, "kinds", path, check_kind) &&
	       each(c, owner, "tags", path, check_tag) &&
	       each(c, owner, "stacks", path, check_stack) &&
	       each(c, owner, "leaks", path, check_leak) &&
	       each(c, owner, "failures", path, check_failure) && check_timeline(c, owner, path);
}

static bool check_device(struct checker *c, json_t *item, const char *path)
{
	return need_count(c, item, "ordinal", path) && need_string_or_null(c, item, "name", path) &&
	       need_string_or_null(c, item, "uuid", path) &&
	       need_count_or_null(c, item, "capacity_bytes", path) && check_totals(c, item, path) &&
	       check_levels(c, item, path);
}

/* Each device once: a report with two device 0 entries would be counted
 * twice by every reader. */
static bool check_devices(struct checker *c, json_t *root)
{
	if (!each(c, root, "devices", "", check_device))
		return false;
	uint64_t seen[1024] = {0};
	size_t i;
	json_t *device;
	json_array_foreach (json_object_get(root, "devices"), i, device) {
		json_int_t ordinal = json_integer_value(json_object_get(device, "ordinal"));
		if (ordinal >= 65536)
			return fail(c, ".devices[%zu].ordinal: %lld is no device ordinal", i,
				    (long long)ordinal);
		uint64_t bit = 1ull << (ordinal % 64);
		if (seen[ordinal / 64] & bit)
			return fail(c, ".devices[%zu]: device %lld appears twice", i,
				    (long long)ordinal);
		seen[ordinal / 64] |= bit;
	}
	return true;
}

/* A frame: an object as written before the frame table, or an index into
 * the report's "frames". */
static bool check_frame(struct checker *c, json_t *item, const char *path)
{
	return need_string_or_null(c, item, "function", path) &&
	       need_string_or_null(c, item, "module", path) &&
	       need_string_or_null(c, item, "file", path);
}

static bool check_stack_frames(struct checker *c, json_t *item, const char *path)
{
	if (!need_count(c, item, "id", path))
		return false;
	json_t *frames = json_object_get(item, "frames");
	char where[256];
	snprintf(where, sizeof(where), "%s.frames", path);
	if (!need_array(c, frames, where))
		return false;
	size_t i;
	json_t *frame;
	json_array_foreach (frames, i, frame) {
		snprintf(where, sizeof(where), "%s.frames[%zu]", path, i);
		if (json_is_integer(frame)) {
			json_int_t index = json_integer_value(frame);
			if (index < 0 || (size_t)index >= c->frame_table_size)
				return fail(c, "%s: frame %lld is not in the frame table (%zu)",
					    where, (long long)index, c->frame_table_size);
		} else if (!need_object(c, frame, where) || !check_frame(c, frame, where)) {
			return false;
		}
	}
	return true;
}

static bool check_run(struct checker *c, json_t *root)
{
	json_t *run = json_object_get(root, "run");
	if (!need_object(c, run, "run"))
		return false;
	json_t *command = json_object_get(run, "command");
	json_t *labels = json_object_get(run, "labels");
	if (!need_array(c, command, "run.command") || !need_object(c, labels, "run.labels"))
		return false;
	size_t i;
	json_t *value;
	json_array_foreach (command, i, value) {
		if (!json_is_string(value))
			return fail(c, "run.command[%zu]: expected a string", i);
	}
	const char *key;
	json_object_foreach (labels, key, value) {
		if (!json_is_string(value))
			return fail(c, "run.labels.%s: expected a string", key);
	}
	return need_string_or_null(c, run, "host", "run") &&
	       need_string_or_null(c, run, "rank", "run") &&
	       need_string_or_null(c, run, "ended_by", "run");
}

static bool check_single(struct checker *c, json_t *root)
{
	json_t *host = json_object_get(root, "host");
	json_t *table = json_object_get(root, "frames");
	json_t *frames = json_object_get(root, "stack_frames");
	if (table && !each(c, root, "frames", "", check_frame))
		return false;
	c->frame_table_size = json_array_size(table);
	return check_run(c, root) && check_devices(c, root) && need_object(c, host, "host") &&
	       check_totals(c, host, "host") &&
	       (!frames || each(c, root, "stack_frames", "", check_stack_frames));
}

static bool check_rank(struct checker *c, json_t *item, const char *path)
{
	json_t *report = json_object_get(item, "report");
	char where[256];
	snprintf(where, sizeof(where), "%s.report", path);
	if (!need_object(c, report, where))
		return false;
	struct checker inner = {c->error, c->size, false};
	if (!check_single(&inner, report)) {
		char reason[512];
		snprintf(reason, sizeof(reason), "%s", c->error);
		return fail(c, "%s: %s", where, reason);
	}
	return need_string(c, item, "file", path);
}

static bool check_merged(struct checker *c, json_t *root)
{
	return each(c, root, "ranks", "", check_rank) &&
	       (json_array_size(json_object_get(root, "ranks")) > 0 ||
		fail(c, "ranks: a merged report needs at least one rank"));
}

bool vt_report_check(json_t *root, bool *merged, char *error, size_t size)
{
	struct checker c = {error, size, false};
	if (!json_is_object(root))
		return fail(&c, "not a vramtrace report: the document is not a JSON object");
	json_t *schema = json_object_get(root, "schema");
	if (!json_is_string(schema))
		return fail(&c, "not a vramtrace report: no \"schema\" field");
	const char *name = json_string_value(schema);
	*merged = strcmp(name, VT_SCHEMA_MERGED) == 0;
	if (!*merged && strcmp(name, VT_SCHEMA) != 0) {
		if (strncmp(name, "vramtrace/", 10) == 0)
			return fail(&c,
				    "schema \"%.64s\" is not one this vramtrace reads (%s, %s); "
				    "a newer vramtrace wrote it",
				    name, VT_SCHEMA, VT_SCHEMA_MERGED);
		return fail(&c, "not a vramtrace report: schema \"%.64s\"", name);
	}
	return *merged ? check_merged(&c, root) : check_single(&c, root);
}

/* The model of a document vt_report_check accepted (report or merged);
 * false when memory runs out, with the reason in error. */
static bool fill_model(struct vt_report_file *file, char *error, size_t size)
{
	bool filled = file->merged ? vt_merged_model_fill(file->root, &file->ranks)
				   : vt_report_model_fill(file->root, &file->report);
	if (!filled) {
		snprintf(error, size, "%s: out of memory reading it", file->path);
		vt_report_close(file);
	}
	return filled;
}

/* The parsed document checked, then the model filled from it. */
static bool check_and_fill(struct vt_report_file *out, char *error, size_t size)
{
	char reason[512];
	if (!vt_report_check(out->root, &out->merged, reason, sizeof(reason))) {
		snprintf(error, size, "%s: %s", out->path, reason);
		vt_report_close(out);
		return false;
	}
	return fill_model(out, error, size);
}

bool vt_report_load(const char *path, struct vt_report_file *out, char *error, size_t size)
{
	memset(out, 0, sizeof(*out));
	out->path = path;
	struct stat st;
	if (stat(path, &st) != 0) {
		snprintf(error, size, "%s: cannot read: %s", path, strerror(errno));
		return false;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(error, size, "%s: is a directory, not a report", path);
		return false;
	}
	if ((uint64_t)st.st_size >= VT_MAX_REPORT_BYTES) {
		snprintf(error, size, "%s: %lld bytes is larger than any report (256 MiB)", path,
			 (long long)st.st_size);
		return false;
	}
	json_error_t parse_error;
	errno = 0;
	out->root = json_load_file(path, JSON_REJECT_DUPLICATES, &parse_error);
	if (!out->root) {
		if (!parse_error.text[0] || errno == ENOMEM)
			snprintf(error, size,
				 "%s: cannot read it: %s (the file is %lld bytes; reading a report "
				 "takes some twenty times its size in memory)",
				 path, errno ? strerror(errno) : "out of memory",
				 (long long)st.st_size);
		else if (parse_error.line > 0)
			snprintf(error, size, "%s:%d:%d: %s", path, parse_error.line,
				 parse_error.column, parse_error.text);
		else
			snprintf(error, size, "%s: %s", path, parse_error.text);
		return false;
	}
	return check_and_fill(out, error, size);
}

bool vt_report_load_buffer(const char *name, const char *data, size_t length,
			   struct vt_report_file *out, char *error, size_t size)
{
	memset(out, 0, sizeof(*out));
	out->path = name;
	json_error_t parse_error;
	out->root = json_loadb(data, length, JSON_REJECT_DUPLICATES, &parse_error);
	if (!out->root) {
		snprintf(error, size, "%s:%d:%d: %s", name, parse_error.line, parse_error.column,
			 parse_error.text);
		return false;
	}
	return check_and_fill(out, error, size);
}

void vt_report_close(struct vt_report_file *report)
{
	vt_report_model_free(&report->report);
	vt_merged_model_free(&report->ranks);
	if (report->root)
		json_decref(report->root);
	report->root = NULL;
}
