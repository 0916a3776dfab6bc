/* Fills the typed report model from a checked document. The checks ran
 * first (report_file.c), so every field read here has its type: a missing
 * optional one reads as absent, never as garbage. */
#include "report_model.h"

#include <stdlib.h>
#include <string.h>

static int64_t count(json_t *object, const char *key)
{
	json_t *value = json_object_get(object, key);
	return json_is_integer(value) ? json_integer_value(value) : 0;
}

static struct vt_maybe maybe(json_t *object, const char *key)
{
	json_t *value = json_object_get(object, key);
	return json_is_integer(value) ? (struct vt_maybe){true, json_integer_value(value)}
				      : (struct vt_maybe){false, 0};
}

static const char *text(json_t *object, const char *key)
{
	json_t *value = json_object_get(object, key);
	return json_is_string(value) ? json_string_value(value) : NULL;
}

/* An array of n elements of size each, zeroed; *ok turns false when memory
 * runs out (nothing is allocated for n == 0). */
static void *elements(size_t n, size_t size, bool *ok)
{
	if (n == 0)
		return NULL;
	void *memory = calloc(n, size);
	*ok &= memory != NULL;
	return memory;
}

static uint64_t request(json_t *object, const char *key)
{
	uint64_t bytes;
	return vt_request_bytes(json_object_get(object, key), &bytes) ? bytes : 0;
}

/* The fields of a list of report_schema.h read from object into the
 * members of *out of the same names (report_model.h); NESTED ones by
 * hand. */
#define FILL_FIELDS(list, object, out)        \
	do {                                  \
		json_t *object_ = (object);   \
		__typeof__(out) out_ = (out); \
		list(FILL_FIELD)              \
	} while (0)
#define FILL_FIELD(key, type, value) FILL_##type(key)
#define FILL_COUNT(key)              out_->key = count(object_, #key);
#define FILL_COUNT_OR_NULL(key)      out_->key = maybe(object_, #key);
#define FILL_STACK(key)              out_->key = count(object_, #key);
#define FILL_STACK_OR_NULL(key)      out_->key = maybe(object_, #key);
#define FILL_REQUEST(key)            out_->key = request(object_, #key);
#define FILL_INTEGER(key)            out_->key = count(object_, #key);
#define FILL_STRING(key)             out_->key = text(object_, #key);
#define FILL_STRING_OR_NULL(key)     out_->key = text(object_, #key);
#define FILL_FIGURE(key)             out_->key = count(object_, #key);
#define FILL_FIGURE_OR_NULL(key)     out_->key = maybe(object_, #key);
#define FILL_SIGNED(key)             out_->key = count(object_, #key);
#define FILL_NOTE(key)               out_->key = text(object_, #key);
#define FILL_FLAG(key)               out_->key = json_is_true(json_object_get(object_, #key));
#define FILL_NESTED(key)

static struct vt_tag_bytes_model *tag_bytes(json_t *object, size_t *n, bool *ok)
{
	*n = json_object_size(object);
	struct vt_tag_bytes_model *out = elements(*n, sizeof(*out), ok);
	size_t i = 0;
	const char *key;
	json_t *value;
	json_object_foreach (object, key, value) {
		if (out)
			out[i++] = (struct vt_tag_bytes_model){key, json_integer_value(value)};
	}
	return out;
}

/* Each element of object[key], an array, filled into a new array by
 * fill(item, element): the element count goes to *n. */
#define FILL_ARRAY(object, key, out, n, ok, fill_one)              \
	do {                                                       \
		json_t *array_ = json_object_get((object), (key)); \
		*(n) = json_array_size(array_);                    \
		*(out) = elements(*(n), sizeof(**(out)), (ok));    \
		size_t i_;                                         \
		json_t *item_;                                     \
		json_array_foreach (array_, i_, item_) {           \
			if (*(out))                                \
				fill_one(item_, &(*(out))[i_]);    \
		}                                                  \
	} while (0)

#define TOP_STACK(item, row) FILL_FIELDS(VT_SCHEMA_TOP_STACK, item, row)

const char *vt_rank_name(const struct vt_rank *rank)
{
	return rank->rank ? rank->rank : rank->file ? rank->file : "?";
}

bool vt_request_bytes(json_t *value, uint64_t *bytes)
{
	if (json_is_integer(value) && json_integer_value(value) >= 0) {
		*bytes = (uint64_t)json_integer_value(value);
		return true;
	}
	const char *text = json_string_value(value);
	if (!text || !*text || strlen(text) > 20)
		return false;
	unsigned __int128 parsed = 0;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		parsed = parsed * 10 + (unsigned)(*p - '0');
	}
	if (parsed > UINT64_MAX)
		return false;
	*bytes = (uint64_t)parsed;
	return true;
}

static void fill_failure(json_t *item, struct vt_failure_model *out, bool *ok)
{
	*out = (struct vt_failure_model){0};
	FILL_FIELDS(VT_SCHEMA_FAILURE, item, out);
	json_t *snapshot = json_object_get(item, "snapshot");
	if (!json_is_object(snapshot))
		return;
	out->has_snapshot = true;
	out->live_by_tag =
		tag_bytes(json_object_get(snapshot, "live_by_tag"), &out->live_by_tag_count, ok);
	FILL_ARRAY(snapshot, "top_stacks", &out->top_stacks, &out->top_stack_count, ok, TOP_STACK);
}

static void fill_row(json_t *item, struct vt_timeline_row_model *row, bool *ok)
{
	*row = (struct vt_timeline_row_model){.by_tag_json = json_object_get(item, "by_tag")};
	FILL_FIELDS(VT_SCHEMA_ROW, item, row);
	row->by_tag = tag_bytes(row->by_tag_json, &row->by_tag_count, ok);
	row->has_stacks = json_is_array(json_object_get(item, "top_stacks"));
	if (row->has_stacks)
		FILL_ARRAY(item, "top_stacks", &row->top_stacks, &row->top_stack_count, ok,
			   TOP_STACK);
}

#define TIMELINE_ROW(item, row) fill_row(item, row, ok)

static void fill_timeline(json_t *timeline, struct vt_timeline_model *out, bool *ok)
{
	if (!json_is_object(timeline))
		return;
	*out = (struct vt_timeline_model){.present = true};
	FILL_FIELDS(VT_SCHEMA_TIMELINE, timeline, out);
	FILL_ARRAY(timeline, "rows", &out->rows, &out->row_count, ok, TIMELINE_ROW);
}

static void fill_pool(json_t *item, struct vt_pool *pool)
{
	FILL_FIELDS(VT_SCHEMA_RESERVE, item, pool);
	FILL_FIELDS(VT_SCHEMA_POOL, item, pool);
}

#define POOL(item, pool)    fill_pool(item, pool)
#define CROSSING(item, row) FILL_FIELDS(VT_SCHEMA_CROSSING, item, row)

/* What running processes add: the peak since a reset, the watermark. */
static void fill_levels(json_t *device, struct vt_owner *out, bool *ok)
{
	json_t *interval = json_object_get(device, "peak_since_reset");
	if (json_is_object(interval)) {
		out->since_reset.present = true;
		FILL_FIELDS(VT_SCHEMA_INTERVAL, interval, &out->since_reset);
	}
	json_t *watermark = json_object_get(device, "watermark");
	if (!json_is_object(watermark))
		return;
	out->watermark.present = true;
	FILL_FIELDS(VT_SCHEMA_WATERMARK, watermark, &out->watermark);
	FILL_ARRAY(watermark, "crossings", &out->watermark.crossings,
		   &out->watermark.crossing_count, ok, CROSSING);
}

static void fill_device_parts(json_t *device, struct vt_owner *out, bool *ok)
{
	fill_levels(device, out, ok);
	json_t *view = json_object_get(device, "device_view");
	if (json_is_object(view)) {
		out->device_view = (struct vt_device_view_model){
			.present = true,
			.away_from_peak = json_is_false(json_object_get(view, "sampled_at_peak")),
		};
		FILL_FIELDS(VT_SCHEMA_DEVICE_VIEW, view, &out->device_view);
	}
	FILL_ARRAY(device, "pools", &out->pools, &out->pool_count, ok, POOL);
	json_t *graphs = json_object_get(device, "graph_memory");
	if (json_is_object(graphs)) {
		out->graph_memory.present = true;
		FILL_FIELDS(VT_SCHEMA_RESERVE, graphs, &out->graph_memory);
		FILL_FIELDS(VT_SCHEMA_GRAPH_MEMORY, graphs, &out->graph_memory);
	}
}

/* A kind's, tag's or stack's row: its own fields, then the counter's. */
#define COUNTER_ROW(list, item, row)                                    \
	do {                                                            \
		FILL_FIELDS(list, item, row);                           \
		FILL_FIELDS(VT_SCHEMA_COUNTER, item, &(row)->counters); \
	} while (0)
#define KIND_ROW(item, row)  COUNTER_ROW(VT_SCHEMA_KIND, item, row)
#define TAG_ROW(item, row)   COUNTER_ROW(VT_SCHEMA_TAG, item, row)
#define STACK_ROW(item, row) COUNTER_ROW(VT_SCHEMA_STACK, item, row)
#define LEAK(item, row)      FILL_FIELDS(VT_SCHEMA_LEAK, item, row)
#define FAILURE(item, row)   fill_failure(item, row, ok)

static void fill_owner(json_t *owner, struct vt_owner *out, bool *ok)
{
	*out = (struct vt_owner){.json = owner};
	FILL_FIELDS(VT_SCHEMA_DEVICE, owner, out);
	FILL_FIELDS(VT_SCHEMA_TOTALS, owner, out);
	FILL_FIELDS(VT_SCHEMA_STACKS_AT_PEAK, owner, out);
	FILL_FIELDS(VT_SCHEMA_PEAK, json_object_get(owner, "peak"), &out->peak);
	FILL_ARRAY(owner, "kinds", &out->kinds, &out->kind_count, ok, KIND_ROW);
	FILL_ARRAY(owner, "tags", &out->tags, &out->tag_count, ok, TAG_ROW);
	FILL_ARRAY(owner, "stacks", &out->stacks, &out->stack_count, ok, STACK_ROW);
	FILL_ARRAY(owner, "leaks", &out->leaks, &out->leak_count, ok, LEAK);
	FILL_ARRAY(owner, "failures", &out->failures, &out->failure_count, ok, FAILURE);
	fill_timeline(json_object_get(owner, "timeline"), &out->timeline, ok);
	fill_device_parts(owner, out, ok);
}

static void free_owner(struct vt_owner *owner)
{
	for (size_t i = 0; i < owner->failure_count && owner->failures; i++) {
		free(owner->failures[i].live_by_tag);
		free(owner->failures[i].top_stacks);
	}
	for (size_t i = 0; i < owner->timeline.row_count && owner->timeline.rows; i++) {
		free(owner->timeline.rows[i].by_tag);
		free(owner->timeline.rows[i].top_stacks);
	}
	free(owner->kinds);
	free(owner->tags);
	free(owner->stacks);
	free(owner->leaks);
	free(owner->failures);
	free(owner->timeline.rows);
	free(owner->pools);
	free(owner->watermark.crossings);
}

#define FRAME(item, frame) FILL_FIELDS(VT_SCHEMA_FRAME, item, frame)

static void fill_run(json_t *run, struct vt_run_model *out, bool *ok)
{
	json_t *command = json_object_get(run, "command"), *labels = json_object_get(run, "labels");
	json_t *cuda = json_object_get(run, "cuda");
	*out = (struct vt_run_model){
		.command_count = json_array_size(command),
		.label_count = json_object_size(labels),
		.has_cuda = json_is_object(cuda),
	};
	FILL_FIELDS(VT_SCHEMA_RUN, run, out);
	FILL_FIELDS(VT_SCHEMA_CUDA, cuda, &out->cuda);
	out->command = elements(out->command_count, sizeof(*out->command), ok);
	out->labels = elements(out->label_count, sizeof(*out->labels), ok);
	size_t i;
	json_t *value;
	json_array_foreach (command, i, value) {
		if (out->command)
			out->command[i] = json_string_value(value);
	}
	i = 0;
	const char *key;
	json_object_foreach (labels, key, value) {
		if (out->labels)
			out->labels[i++] = (struct vt_label){key, json_string_value(value)};
	}
}

static int by_id(const void *a, const void *b)
{
	int64_t x = ((const struct vt_stack_frames *)a)->id;
	int64_t y = ((const struct vt_stack_frames *)b)->id;
	return (x > y) - (x < y);
}

/* Stacks' frames: an index into the frame table, or (older reports) the
 * frame itself, which gets a place of its own. */
static void fill_stacks(json_t *root, struct vt_report_model *out, bool *ok)
{
	json_t *stacks = json_object_get(root, "stack_frames");
	size_t inline_count = 0, i, j;
	json_t *item, *frame;
	json_array_foreach (stacks, i, item) {
		json_array_foreach (json_object_get(item, "frames"), j, frame)
			inline_count += json_is_object(frame);
	}
	out->inline_frames = elements(inline_count, sizeof(*out->inline_frames), ok);
	out->stack_count = json_array_size(stacks);
	out->stacks = elements(out->stack_count, sizeof(*out->stacks), ok);
	if (!*ok)
		return;
	json_array_foreach (stacks, i, item) {
		json_t *frames = json_object_get(item, "frames");
		struct vt_stack_frames *stack = &out->stacks[i];
		stack->id = count(item, "id");
		stack->group = json_is_integer(json_object_get(item, "group"))
				       ? count(item, "group")
				       : stack->id;
		stack->count = json_array_size(frames);
		stack->frames = elements(stack->count, sizeof(*stack->frames), ok);
		if (!stack->frames)
			continue;
		json_array_foreach (frames, j, frame) {
			if (json_is_integer(frame)) {
				stack->frames[j] = &out->frame_table[json_integer_value(frame)];
			} else {
				struct vt_frame_model *own =
					&out->inline_frames[out->inline_frame_count++];
				FRAME(frame, own);
				stack->frames[j] = own;
			}
		}
	}
	if (out->stack_count) /* a report without stack_frames has no array to sort */
		qsort(out->stacks, out->stack_count, sizeof(*out->stacks), by_id);
}

#define RESOURCE(item, event) FILL_FIELDS(VT_SCHEMA_RESOURCE_EVENT, item, event)
#define GROUP_PEAK(item, row) FILL_FIELDS(VT_SCHEMA_GROUP_PEAK, item, row)

bool vt_report_model_fill(json_t *root, struct vt_report_model *out)
{
	bool ok = true;
	*out = (struct vt_report_model){.root = root};
	fill_run(json_object_get(root, "run"), &out->run, &ok);
	json_t *devices = json_object_get(root, "devices");
	out->device_count = json_array_size(devices);
	out->devices = elements(out->device_count, sizeof(*out->devices), &ok);
	size_t i;
	json_t *device;
	json_array_foreach (devices, i, device) {
		if (out->devices)
			fill_owner(device, &out->devices[i], &ok);
	}
	fill_owner(json_object_get(root, "host"), &out->host, &ok);
	FILL_ARRAY(root, "frames", &out->frame_table, &out->frame_table_count, &ok, FRAME);
	if (ok)
		fill_stacks(root, out, &ok);
	json_t *resources = json_object_get(root, "resources");
	out->has_resources = json_is_array(json_object_get(resources, "events"));
	FILL_ARRAY(resources, "events", &out->resources, &out->resource_count, &ok, RESOURCE);
	FILL_ARRAY(root, "group_peaks", &out->group_peaks, &out->group_peak_count, &ok, GROUP_PEAK);
	if (!ok)
		vt_report_model_free(out);
	return ok;
}

void vt_report_model_free(struct vt_report_model *report)
{
	free(report->run.command);
	free(report->run.labels);
	for (size_t i = 0; i < report->device_count && report->devices; i++)
		free_owner(&report->devices[i]);
	free(report->devices);
	free_owner(&report->host);
	for (size_t i = 0; i < report->stack_count && report->stacks; i++)
		free(report->stacks[i].frames);
	free(report->stacks);
	free(report->frame_table);
	free(report->inline_frames);
	free(report->resources);
	free(report->group_peaks);
	*report = (struct vt_report_model){0};
}

#define MERGED_TAG(item, tag)                                                                 \
	(*(tag) = (struct vt_merged_tag){text(item, "tag"), count(item, "at_peak_sum_bytes"), \
					 count(item, "at_peak_max_bytes")})

bool vt_merged_model_fill(json_t *root, struct vt_merged *out)
{
	bool ok = true;
	json_t *peak = json_object_get(root, "peak"), *ranks = json_object_get(root, "ranks");
	*out = (struct vt_merged){
		.root = root,
		.peak_max_bytes = count(peak, "max_bytes"),
		.peak_min_bytes = count(peak, "min_bytes"),
		.peak_skew_bytes = count(peak, "skew_bytes"),
		.peak_max_rank = text(peak, "max_rank"),
		.peak_min_rank = text(peak, "min_rank"),
		.rank_count = json_array_size(ranks),
	};
	FILL_ARRAY(root, "tags", &out->tags, &out->tag_count, &ok, MERGED_TAG);
	out->ranks = elements(out->rank_count, sizeof(*out->ranks), &ok);
	size_t i;
	json_t *rank;
	json_array_foreach (ranks, i, rank) {
		if (!out->ranks)
			break;
		out->ranks[i].json = rank;
		out->ranks[i].rank = text(rank, "rank");
		out->ranks[i].file = text(rank, "file");
		ok &= vt_report_model_fill(json_object_get(rank, "report"), &out->ranks[i].report);
	}
	if (!ok)
		vt_merged_model_free(out);
	return ok;
}

void vt_merged_model_free(struct vt_merged *merged)
{
	for (size_t i = 0; i < merged->rank_count && merged->ranks; i++)
		vt_report_model_free(&merged->ranks[i].report);
	free(merged->ranks);
	free(merged->tags);
	*merged = (struct vt_merged){0};
}

const struct vt_stack_frames *vt_report_stack(const struct vt_report_model *report, int64_t id)
{
	struct vt_stack_frames key = {.id = id};
	return bsearch(&key, report->stacks, report->stack_count, sizeof(key), by_id);
}

int64_t vt_report_peak(const struct vt_report_model *report)
{
	int64_t peak = 0;
	for (size_t i = 0; i < report->device_count; i++)
		if (report->devices[i].peak.bytes > peak)
			peak = report->devices[i].peak.bytes;
	return peak;
}
