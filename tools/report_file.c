#include "report_file.h"

#include "../lib/core/tags.h"
#include "../lib/report/report_schema.h"
#include "report_relations.h"
#include "report_text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A request's size as the program asked it (a failed cudaMalloc of
 * (size_t)-4, say): any 64-bit unsigned value, which the reader holds as a
 * decimal string from 2^63 on (see vt_request_bytes). */
static bool need_request_size(struct checker *c, json_t *object, const char *key, const char *path)
{
	json_t *value = json_object_get(object, key);
	uint64_t bytes;
	return (json_is_integer(value) && json_integer_value(value) >= 0) ||
	       (json_is_string(value) && vt_request_bytes(value, &bytes)) ||
	       fail(c, "%s.%s: expected a non-negative integer below 2^64", path, key);
}

static bool need_count(struct checker *c, json_t *object, const char *key, const char *path)
{
	return is_count(json_object_get(object, key)) ||
	       fail(c, "%s.%s: expected a non-negative integer below 2^62", path, key);
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

/* The library cuts a tag at VT_TAG_MAX_NAME bytes and writes each byte
 * that is not UTF-8 as U+FFFD (3 bytes): no tag it writes is longer. */
#define TAG_MAX_WRITTEN (3 * VT_TAG_MAX_NAME)

static bool tag_fits(struct checker *c, const char *tag, const char *path, const char *what)
{
	size_t length = strlen(tag);
	return length <= TAG_MAX_WRITTEN ||
	       fail(c, "%s%s: a tag of %zu bytes; no tag is longer than %d bytes (%d as written)",
		    path, what, length, VT_TAG_MAX_NAME, TAG_MAX_WRITTEN);
}

static bool need_tag(struct checker *c, json_t *object, const char *key, const char *path)
{
	json_t *value = json_object_get(object, key);
	char what[32];
	snprintf(what, sizeof(what), ".%s", key);
	return !json_is_string(value) || tag_fits(c, json_string_value(value), path, what);
}

/* A figure (the writer writes an unsigned number, or null where a frame
 * has no line): absent in older reports, null, or a non-negative integer
 * that fits 64 signed bits; -1 or 2^63 would print as -8.00 EiB. */
static bool need_figure(struct checker *c, json_t *object, const char *key, const char *path)
{
	json_t *value = json_object_get(object, key);
	return !value || json_is_null(value) ||
	       (json_is_integer(value) && json_integer_value(value) >= 0) ||
	       fail(c, "%s.%s: expected a non-negative integer below 2^63", path, key);
}

static bool need_signed(struct checker *c, json_t *object, const char *key, const char *path)
{
	json_t *value = json_object_get(object, key);
	return !value || json_is_integer(value) || fail(c, "%s.%s: expected an integer", path, key);
}

static bool need_integer(struct checker *c, json_t *object, const char *key, const char *path)
{
	return json_is_integer(json_object_get(object, key)) ||
	       fail(c, "%s.%s: expected an integer", path, key);
}

/* The fields of a list of report_schema.h in object, checked as their
 * types say (the unchecked ones and the NESTED ones pass here). */
#define CHECK_FIELDS(list, object, path)    \
	({                                  \
		json_t *object_ = (object); \
		const char *path_ = (path); \
		(void)object_, (void)path_; \
		true list(CHECK_FIELD);     \
	})
#define CHECK_FIELD(key, type, value) &&CHECK_##type(#key)
#define CHECK_COUNT(key)              need_count(c, object_, key, path_)
#define CHECK_COUNT_OR_NULL(key)      need_count_or_null(c, object_, key, path_)
#define CHECK_STACK(key)              need_count(c, object_, key, path_)
#define CHECK_STACK_OR_NULL(key)      need_count_or_null(c, object_, key, path_)
#define CHECK_REQUEST(key)            need_request_size(c, object_, key, path_)
#define CHECK_INTEGER(key)            need_integer(c, object_, key, path_)
#define CHECK_STRING(key)             need_string(c, object_, key, path_)
#define CHECK_STRING_OR_NULL(key)     need_string_or_null(c, object_, key, path_)
#define CHECK_FIGURE(key)             need_figure(c, object_, key, path_)
#define CHECK_FIGURE_OR_NULL(key)     need_figure(c, object_, key, path_)
#define CHECK_SIGNED(key)             need_signed(c, object_, key, path_)
#define CHECK_NOTE(key)               true
#define CHECK_FLAG(key)               true
#define CHECK_NESTED(key)             true

static bool check_kind(struct checker *c, json_t *item, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_KIND, item, path) &&
	       CHECK_FIELDS(VT_SCHEMA_COUNTER, item, path);
}

static bool check_tag(struct checker *c, json_t *item, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_TAG, item, path) &&
	       CHECK_FIELDS(VT_SCHEMA_COUNTER, item, path) && need_tag(c, item, "tag", path);
}

static bool check_stack(struct checker *c, json_t *item, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_STACK, item, path) &&
	       CHECK_FIELDS(VT_SCHEMA_COUNTER, item, path) && need_tag(c, item, "tag", path);
}

static bool check_leak(struct checker *c, json_t *item, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_LEAK, item, path) && need_tag(c, item, "tag", path);
}

static bool check_top_stack(struct checker *c, json_t *item, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_TOP_STACK, item, path);
}

/* An object of tag -> count. */
static bool need_tag_counts(struct checker *c, json_t *object, const char *path)
{
	const char *key;
	json_t *value;
	json_object_foreach (object, key, value) {
		if (!tag_fits(c, key, path, " key"))
			return false;
		if (!is_count(value))
			return fail(c, "%s.%s: expected a non-negative integer below 2^62", path,
				    key);
	}
	return true;
}

static bool check_snapshot(struct checker *c, json_t *failure, const char *path)
{
	json_t *snapshot = json_object_get(failure, "snapshot");
	if (!snapshot || json_is_null(snapshot))
		return true;
	char where[256], tags[300];
	snprintf(where, sizeof(where), "%s.snapshot", path);
	snprintf(tags, sizeof(tags), "%s.live_by_tag", where);
	json_t *by_tag = json_object_get(snapshot, "live_by_tag");
	return need_object(c, snapshot, where) && need_object(c, by_tag, where) &&
	       need_tag_counts(c, by_tag, tags) &&
	       each(c, snapshot, "top_stacks", where, check_top_stack);
}

static bool check_failure(struct checker *c, json_t *item, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_FAILURE, item, path) && need_tag(c, item, "tag", path) &&
	       check_snapshot(c, item, path);
}

/* top_stacks: null past the history's bound, absent in older reports. */
static bool check_row_stacks(struct checker *c, json_t *item, const char *path)
{
	json_t *stacks = json_object_get(item, "top_stacks");
	return !stacks || json_is_null(stacks) ||
	       each(c, item, "top_stacks", path, check_top_stack);
}

/* min_bytes, max_bytes and end_bytes came later: reports before them have
 * live_bytes alone, the highest of the interval. */
static bool check_row(struct checker *c, json_t *item, const char *path)
{
	char tags[300];
	snprintf(tags, sizeof(tags), "%s.by_tag", path);
	json_t *by_tag = json_object_get(item, "by_tag");
	return CHECK_FIELDS(VT_SCHEMA_ROW, item, path) && need_object(c, by_tag, path) &&
	       need_tag_counts(c, by_tag, tags) && check_row_stacks(c, item, path);
}

static bool check_timeline(struct checker *c, json_t *owner, const char *path)
{
	json_t *timeline = json_object_get(owner, "timeline");
	if (!timeline)
		return true;
	char where[256];
	snprintf(where, sizeof(where), "%s.timeline", path);
	return need_object(c, timeline, where) &&
	       CHECK_FIELDS(VT_SCHEMA_TIMELINE, timeline, where) &&
	       each(c, timeline, "rows", where, check_row);
}

static bool check_crossing(struct checker *c, json_t *item, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_CROSSING, item, path) && check_snapshot(c, item, path);
}

/* peak_since_reset and watermark: null, or absent in older reports. */
static bool check_levels(struct checker *c, json_t *device, const char *path)
{
	char where[256];
	json_t *interval = json_object_get(device, "peak_since_reset");
	snprintf(where, sizeof(where), "%s.peak_since_reset", path);
	if (interval && !json_is_null(interval) &&
	    !(need_object(c, interval, where) && CHECK_FIELDS(VT_SCHEMA_INTERVAL, interval, where)))
		return false;
	json_t *watermark = json_object_get(device, "watermark");
	snprintf(where, sizeof(where), "%s.watermark", path);
	return !watermark || json_is_null(watermark) ||
	       (need_object(c, watermark, where) &&
		CHECK_FIELDS(VT_SCHEMA_WATERMARK, watermark, where) &&
		each(c, watermark, "crossings", where, check_crossing));
}

/* The fields a device and the host section share. */
static bool check_totals(struct checker *c, json_t *owner, const char *path)
{
	char where[256];
	snprintf(where, sizeof(where), "%s.peak", path);
	json_t *peak = json_object_get(owner, "peak");
	return need_object(c, peak, where) && CHECK_FIELDS(VT_SCHEMA_PEAK, peak, where) &&
	       CHECK_FIELDS(VT_SCHEMA_TOTALS, owner, path) &&
	       CHECK_FIELDS(VT_SCHEMA_STACKS_AT_PEAK, owner, path) &&
	       each(c, owner, "kinds", path, check_kind) &&
	       each(c, owner, "tags", path, check_tag) &&
	       each(c, owner, "stacks", path, check_stack) &&
	       each(c, owner, "leaks", path, check_leak) &&
	       each(c, owner, "failures", path, check_failure) && check_timeline(c, owner, path);
}

/* An object at owner[key] whose fields check passes; null or absent
 * (older reports) when may_be_missing. */
static bool check_part(struct checker *c, json_t *owner, const char *key, const char *path,
		       bool (*check)(struct checker *, json_t *, const char *))
{
	json_t *part = json_object_get(owner, key);
	char where[256];
	snprintf(where, sizeof(where), "%s.%s", path, key);
	return !part || json_is_null(part) ||
	       (need_object(c, part, where) && check(c, part, where));
}

static bool check_device_view(struct checker *c, json_t *view, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_DEVICE_VIEW, view, path);
}

static bool check_pool(struct checker *c, json_t *pool, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_RESERVE, pool, path) &&
	       CHECK_FIELDS(VT_SCHEMA_POOL, pool, path);
}

static bool check_graph_memory(struct checker *c, json_t *graphs, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_RESERVE, graphs, path) &&
	       CHECK_FIELDS(VT_SCHEMA_GRAPH_MEMORY, graphs, path);
}

static bool check_device(struct checker *c, json_t *item, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_DEVICE, item, path) && check_totals(c, item, path) &&
	       check_levels(c, item, path) &&
	       check_part(c, item, "device_view", path, check_device_view) &&
	       (!json_object_get(item, "pools") || each(c, item, "pools", path, check_pool)) &&
	       check_part(c, item, "graph_memory", path, check_graph_memory);
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
	return CHECK_FIELDS(VT_SCHEMA_FRAME, item, path);
}

static bool check_stack_frames(struct checker *c, json_t *item, const char *path)
{
	if (!CHECK_FIELDS(VT_SCHEMA_STACK_FRAMES, item, path))
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

static bool check_cuda(struct checker *c, json_t *cuda, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_CUDA, cuda, path);
}

static bool check_resource_event(struct checker *c, json_t *event, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_RESOURCE_EVENT, event, path);
}

static bool check_resources(struct checker *c, json_t *resources, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_RESOURCES, resources, path) &&
	       (!json_object_get(resources, "events") ||
		each(c, resources, "events", path, check_resource_event));
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
	return CHECK_FIELDS(VT_SCHEMA_RUN, run, "run") &&
	       check_part(c, run, "cuda", "run", check_cuda);
}

static bool check_group_peak(struct checker *c, json_t *item, const char *path)
{
	return CHECK_FIELDS(VT_SCHEMA_GROUP_PEAK, item, path);
}

static bool check_single(struct checker *c, json_t *root)
{
	json_t *host = json_object_get(root, "host");
	json_t *table = json_object_get(root, "frames");
	json_t *frames = json_object_get(root, "stack_frames");
	json_t *group_peaks = json_object_get(root, "group_peaks");
	if (table && !each(c, root, "frames", "", check_frame))
		return false;
	c->frame_table_size = json_array_size(table);
	return check_run(c, root) && check_devices(c, root) && need_object(c, host, "host") &&
	       check_totals(c, host, "host") &&
	       check_part(c, root, "resources", "", check_resources) &&
	       (!frames || each(c, root, "stack_frames", "", check_stack_frames)) &&
	       (!group_peaks || each(c, root, "group_peaks", "", check_group_peak));
}

static bool check_rank(struct checker *c, json_t *item, const char *path)
{
	json_t *report = json_object_get(item, "report");
	char where[256];
	snprintf(where, sizeof(where), "%s.report", path);
	if (!need_object(c, report, where))
		return false;
	json_t *schema = json_object_get(report, "schema");
	if (schema &&
	    !(json_is_string(schema) && strcmp(json_string_value(schema), VT_SCHEMA) == 0))
		return fail(c, "%s.schema: a rank's report must be %s", where, VT_SCHEMA);
	struct checker inner = {c->error, c->size, false};
	if (!check_single(&inner, report)) {
		char reason[512];
		snprintf(reason, sizeof(reason), "%s", c->error);
		return fail(c, "%s: %s", where, reason);
	}
	return need_string(c, item, "file", path) && need_string_or_null(c, item, "rank", path);
}

static bool check_merged_tag(struct checker *c, json_t *item, const char *path)
{
	return need_string(c, item, "tag", path) && need_tag(c, item, "tag", path) &&
	       need_count(c, item, "at_peak_sum_bytes", path) &&
	       need_count(c, item, "at_peak_max_bytes", path);
}

static bool check_merged(struct checker *c, json_t *root)
{
	json_t *peak = json_object_get(root, "peak");
	return each(c, root, "ranks", "", check_rank) &&
	       (json_array_size(json_object_get(root, "ranks")) > 0 ||
		fail(c, "ranks: a merged report needs at least one rank")) &&
	       need_object(c, peak, "peak") && need_count(c, peak, "max_bytes", "peak") &&
	       need_count(c, peak, "min_bytes", "peak") &&
	       need_count(c, peak, "skew_bytes", "peak") &&
	       need_string_or_null(c, peak, "max_rank", "peak") &&
	       need_string_or_null(c, peak, "min_rank", "peak") &&
	       each(c, root, "tags", "", check_merged_tag);
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
	if (!fill_model(out, error, size))
		return false;
	if (!vt_report_relations(out->merged ? NULL : &out->report,
				 out->merged ? &out->ranks : NULL, reason, sizeof(reason))) {
		snprintf(error, size, "%s: %s", out->path, reason);
		vt_report_close(out);
		return false;
	}
	return true;
}

/* The whole of path ("-": standard input) into *text. A FIFO, device or
 * socket is refused before any read, so that none can hang a command: it
 * is opened without waiting for a writer and looked at first. */
static bool read_report(const char *path, char **text, size_t *length, char *error, size_t size)
{
	bool from_stdin = strcmp(path, "-") == 0;
	int fd = from_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(error, size, "%s: cannot read: %s", path, strerror(errno));
		return false;
	}
	const char *what = S_ISDIR(st.st_mode)    ? "a directory"
			   : S_ISFIFO(st.st_mode) ? "a FIFO"
			   : S_ISSOCK(st.st_mode) ? "a socket"
			   : S_ISCHR(st.st_mode)  ? "a character device"
			   : S_ISBLK(st.st_mode)  ? "a block device"
						  : NULL;
	if (!from_stdin && !S_ISREG(st.st_mode)) {
		snprintf(error, size, "%s: is %s, not a report (give - to read standard input)",
			 path, what ? what : "not a regular file");
		close(fd);
		return false;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size >= VT_MAX_REPORT_BYTES) {
		snprintf(error, size, "%s: %lld bytes is larger than any report (256 MiB)", path,
			 (long long)st.st_size);
		if (!from_stdin)
			close(fd);
		return false;
	}
	size_t capacity = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 1 << 16, used = 0;
	char *buffer = malloc(capacity);
	for (ssize_t got = 1; buffer && got > 0;) {
		if (used + 1 >= capacity) {
			char *grown = capacity < VT_MAX_REPORT_BYTES ? realloc(buffer, capacity * 2)
								     : NULL;
			if (!grown) {
				free(buffer);
				buffer = NULL;
				errno = capacity < VT_MAX_REPORT_BYTES ? ENOMEM : EFBIG;
				break;
			}
			buffer = grown;
			capacity *= 2;
		}
		got = read(fd, buffer + used, capacity - used - 1);
		if (got < 0 && errno == EINTR)
			got = 1;
		else if (got < 0) {
			free(buffer);
			buffer = NULL;
		} else
			used += (size_t)got;
	}
	int saved = errno;
	if (!from_stdin)
		close(fd);
	if (!buffer) {
		snprintf(error, size, "%s: cannot read: %s", path,
			 saved == EFBIG ? "larger than any report (256 MiB)" : strerror(saved));
		return false;
	}
	*text = buffer;
	*length = used;
	return true;
}

json_t *vt_report_parse(const char *path, const char *text, size_t length, char *error, size_t size)
{
	/* A byte order mark, as some editors save UTF-8, is passed over (RFC
	 * 8259 allows it): it was "'[' or '{' expected near '\xef\xbb\xbf'",
	 * the mark invisible in the message. */
	if (length >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		text += 3;
		length -= 3;
	}
	size_t quoted_length = 0, containers;
	bool no_memory;
	char *quoted =
		vt_report_quote_unsigned(text, length, &quoted_length, &no_memory, &containers);
	if (containers > length / BYTES_PER_CONTAINER + CONTAINER_SLACK) {
		free(quoted);
		snprintf(error, size,
			 "%s: not a vramtrace report: %zu arrays and objects in %zu bytes, more "
			 "than one per %d bytes, which no report holds (refused before reading it "
			 "into memory)",
			 path, containers, length, BYTES_PER_CONTAINER);
		return NULL;
	}
	json_error_t parse_error;
	errno = 0;
	json_t *root = no_memory
			       ? NULL
			       : json_loadb(quoted ? quoted : text, quoted ? quoted_length : length,
					    JSON_REJECT_DUPLICATES, &parse_error);
	free(quoted);
	if (root)
		return root;
	if (no_memory || !parse_error.text[0] || errno == ENOMEM)
		snprintf(error, size,
			 "%s: cannot read it: out of memory (the file is %zu bytes; reading a "
			 "report takes some twenty times its size in memory)",
			 path, length);
	else if (parse_error.line > 0)
		snprintf(error, size, "%s:%d:%d: %s", path, parse_error.line, parse_error.column,
			 /* jansson's own words named its flag */
			 strncmp(parse_error.text, "\\u0000 is not allowed", 21) == 0
				 ? "a string holds \\u0000, which no report does"
				 : parse_error.text);
	else
		snprintf(error, size, "%s: %s", path, parse_error.text);
	return NULL;
}

bool vt_report_load(const char *path, struct vt_report_file *out, char *error, size_t size)
{
	memset(out, 0, sizeof(*out));
	out->path = path;
	char *text;
	size_t length;
	if (!read_report(path, &text, &length, error, size))
		return false;
	out->root = vt_report_parse(path, text, length, error, size);
	free(text);
	return out->root && check_and_fill(out, error, size);
}

bool vt_report_load_buffer(const char *name, const char *data, size_t length,
			   struct vt_report_file *out, char *error, size_t size)
{
	memset(out, 0, sizeof(*out));
	out->path = name;
	out->root = vt_report_parse(name, data, length, error, size);
	return out->root && check_and_fill(out, error, size);
}

void vt_report_close(struct vt_report_file *report)
{
	vt_report_model_free(&report->report);
	vt_merged_model_free(&report->ranks);
	if (report->root)
		json_decref(report->root);
	report->root = NULL;
}
