#include <stdlib.h>
#include <string.h>

#include "../core/event.h"
#include "../core/moments.h"
#include "../core/stacks.h"
#include "../core/tags.h"
#include "cuda_errors.h"
#include "json_writer.h"
#include "report.h"
#include "report_schema.h"
#include "stack_frames.h"

/* A figure that may be unknown: written as null then. */
struct known {
	bool known;
	uint64_t value;
};
#define VT_KNOWN(x)        ((struct known){true, (uint64_t)(x)})
#define VT_KNOWN_IF(is, x) ((struct known){(is), (uint64_t)(x)})

static void write_known(struct vt_json *json, const char *key, struct known figure)
{
	if (figure.known)
		vt_json_u64(json, key, figure.value);
	else
		vt_json_null(json, key);
}

/* The fields of a list of report_schema.h, written from the locals it
 * names (json, and set for stack ids). */
#define WRITE_FIELDS(list)               list(WRITE_FIELD)
#define WRITE_FIELD(key, type, value)    WRITE_##type(#key, value)
#define WRITE_COUNT(key, value)          vt_json_u64(json, key, value);
#define WRITE_FIGURE(key, value)         vt_json_u64(json, key, value);
#define WRITE_REQUEST(key, value)        vt_json_u64(json, key, value);
#define WRITE_INTEGER(key, value)        vt_json_i64(json, key, value);
#define WRITE_SIGNED(key, value)         vt_json_i64(json, key, value);
#define WRITE_COUNT_OR_NULL(key, value)  write_known(json, key, value);
#define WRITE_FIGURE_OR_NULL(key, value) write_known(json, key, value);
#define WRITE_STACK(key, value)          write_stack_id(json, key, value, set);
#define WRITE_STACK_OR_NULL(key, value)  write_stack_id(json, key, value, set);
#define WRITE_STRING(key, value)         vt_json_string(json, key, value);
#define WRITE_STRING_OR_NULL(key, value) vt_json_string(json, key, value);
#define WRITE_NOTE(key, value)           vt_json_string(json, key, value);
#define WRITE_FLAG(key, value)           vt_json_bool(json, key, value);
#define WRITE_NESTED(key, value)         value;

static void write_stack_id(struct vt_json *json, const char *key, uint32_t id,
			   struct vt_stack_ids *set)
{
	vt_stack_ids_mention(set, id);
	if (id == VT_STACK_NONE)
		vt_json_null(json, key);
	else
		vt_json_u64(json, key, id);
}

static void write_command(struct vt_json *json, const struct vt_run *run)
{
	vt_json_begin_array(json, "command");
	for (size_t at = 0; at < run->command_size;) {
		size_t length = strnlen(run->command + at, run->command_size - at);
		vt_json_string_n(json, NULL, run->command + at, length);
		at += length + 1;
	}
	vt_json_end_array(json);
}

/* Whether labels, from rest on, sets the key of key_length bytes again. */
static bool key_set_later(const char *key, size_t key_length, const char *rest)
{
	for (const char *item = rest; item && *item;) {
		if (strncmp(item, key, key_length) == 0 && item[key_length] == '=')
			return true;
		item = strchr(item, ',');
		item = item ? item + 1 : NULL;
	}
	return false;
}

/* A key given twice (VRAMTRACE_LABEL, then --label) keeps its later
 * value: JSON objects have one value per key. */
static void write_labels(struct vt_json *json, const char *labels)
{
	vt_json_begin_object(json, "labels");
	for (const char *item = labels; *item;) {
		const char *end = strchr(item, ',');
		size_t length = end ? (size_t)(end - item) : strlen(item);
		const char *equals = memchr(item, '=', length);
		if (equals && !(end && key_set_later(item, (size_t)(equals - item), end + 1))) {
			char key[256];
			size_t key_length = (size_t)(equals - item);
			if (key_length >= sizeof(key))
				key_length = sizeof(key) - 1;
			memcpy(key, item, key_length);
			key[key_length] = '\0';
			vt_json_string_n(json, key, equals + 1, length - key_length - 1);
		}
		item += length + (end ? 1 : 0);
	}
	vt_json_end_object(json);
}

static void write_environment(struct vt_json *json, const struct vt_run *run)
{
	vt_json_begin_object(json, "environment");
	for (size_t at = 0; at < run->environment_size;) {
		const char *entry = run->environment + at;
		size_t length = strnlen(entry, run->environment_size - at);
		const char *equals = memchr(entry, '=', length);
		if (equals) {
			char name[256];
			size_t name_length = (size_t)(equals - entry);
			if (name_length >= sizeof(name))
				name_length = sizeof(name) - 1;
			memcpy(name, entry, name_length);
			name[name_length] = '\0';
			vt_json_string_n(json, name, equals + 1,
					 length - (size_t)(equals - entry) - 1);
		}
		at += length + 1;
	}
	vt_json_end_object(json);
}

static void write_cuda(struct vt_json *json, const struct vt_cuda_info *cuda)
{
	vt_json_begin_object(json, "cuda");
	WRITE_FIELDS(VT_SCHEMA_CUDA)
	vt_json_end_object(json);
}

static void write_run(struct vt_json *json, const struct vt_run *run)
{
	vt_json_begin_object(json, "run");
	WRITE_FIELDS(VT_SCHEMA_RUN)
	vt_json_end_object(json);
}

static void write_peak(struct vt_json *json, const struct vt_device_stats *stats)
{
	vt_json_begin_object(json, "peak");
	WRITE_FIELDS(VT_SCHEMA_PEAK)
	vt_json_end_object(json);
}

/* The peak since the last reset-peak request, or null when none came. */
static void write_interval(struct vt_json *json, const struct vt_interval *interval)
{
	if (!interval->open) {
		vt_json_null(json, "peak_since_reset");
		return;
	}
	vt_json_begin_object(json, "peak_since_reset");
	WRITE_FIELDS(VT_SCHEMA_INTERVAL)
	vt_json_end_object(json);
}

/* The numbers every kind, tag and stack entry has. */
static void write_counter(struct vt_json *json, const struct vt_device_stats *stats,
			  const struct vt_counter *counter)
{
	WRITE_FIELDS(VT_SCHEMA_COUNTER)
}

static void write_kinds(struct vt_json *json, const struct vt_device_stats *stats)
{
	vt_json_begin_array(json, "kinds");
	for (int k = 0; k < VT_KIND_COUNT; k++) {
		if (stats->kinds[k].allocs == 0)
			continue;
		enum vt_kind kind = (enum vt_kind)k;
		vt_json_begin_object(json, NULL);
		WRITE_FIELDS(VT_SCHEMA_KIND)
		write_counter(json, stats, &stats->kinds[k]);
		vt_json_end_object(json);
	}
	vt_json_end_array(json);
}

/* The order of an emergency report's tags: it may not allocate. Pages
 * never touched cost nothing. */
static uint32_t emergency_tag_order[VT_MAX_TAGS];

/* Every tag, however many: "70,000 tags" means 70,000 entries. */
static void write_tags(struct vt_json *json, const struct vt_report *report,
		       const struct vt_device_stats *stats)
{
	uint32_t *order =
		report->emergency
			? emergency_tag_order
			: malloc((stats->tags.size ? stats->tags.size : 1) * sizeof(*order));
	uint32_t count = order ? vt_report_tag_order(stats, order) : 0;
	vt_json_begin_array(json, "tags");
	for (uint32_t i = 0; i < count; i++) {
		uint32_t tag = order[i];
		vt_json_begin_object(json, NULL);
		WRITE_FIELDS(VT_SCHEMA_TAG)
		write_counter(json, stats, &stats->tags.items[tag]);
		vt_json_end_object(json);
	}
	vt_json_end_array(json);
	if (!report->emergency)
		free(order);
}

/* Every stack that held bytes at the peak, listed or not: what a picture
 * of the peak leaves out is these less the listed ones, and the peak less
 * these is what was allocated with no stack. */
static void write_stacks_at_peak(struct vt_json *json, const struct vt_device_stats *stats)
{
	uint64_t count = 0, bytes = 0;
	for (uint32_t i = 0; i < stats->stacks.size; i++) {
		uint64_t at_peak = vt_stats_at_peak(stats, &stats->stacks.items[i]);
		count += at_peak > 0;
		bytes += at_peak;
	}
	WRITE_FIELDS(VT_SCHEMA_STACKS_AT_PEAK)
}

static void write_stacks(struct vt_json *json, const struct vt_report *report,
			 const struct vt_device_stats *stats, struct vt_stack_ids *set)
{
	uint32_t fixed_order[VT_REPORT_EMERGENCY_TOP];
	struct vt_top_entry fixed_scratch[VT_REPORT_EMERGENCY_TOP];
	unsigned top = report->emergency && report->top > VT_REPORT_EMERGENCY_TOP
			       ? VT_REPORT_EMERGENCY_TOP
			       : report->top;
	uint32_t *order = report->emergency ? fixed_order : calloc(top ? top : 1, sizeof(*order));
	struct vt_top_entry *scratch =
		report->emergency ? fixed_scratch : calloc(top ? top : 1, sizeof(*scratch));
	uint32_t count = order && scratch ? vt_report_top_stacks(stats, top, order, scratch) : 0;
	vt_json_begin_array(json, "stacks");
	for (uint32_t i = 0; i < count; i++) {
		uint32_t stack = order[i];
		const struct vt_counter *counter = &stats->stacks.items[stack];
		vt_json_begin_object(json, NULL);
		WRITE_FIELDS(VT_SCHEMA_STACK)
		write_counter(json, stats, counter);
		vt_json_end_object(json);
	}
	vt_json_end_array(json);
	if (!report->emergency) {
		free(order);
		free(scratch);
	}
	write_stacks_at_peak(json, stats);
}

static void write_leaks(struct vt_json *json, const struct vt_report *report, int device,
			struct vt_stack_ids *set)
{
	unsigned listed = 0;
	vt_json_begin_array(json, "leaks");
	for (uint64_t i = 0; report->leaks && i < report->leaks->group_count; i++) {
		const struct vt_leak *leak = &report->leaks->groups[i];
		if (leak->device != device || listed == report->top)
			continue;
		listed++;
		vt_json_begin_object(json, NULL);
		WRITE_FIELDS(VT_SCHEMA_LEAK)
		vt_json_end_object(json);
	}
	vt_json_end_array(json);
}

static void write_by_tag(struct vt_json *json, const struct vt_timeline_row *row)
{
	vt_json_begin_object(json, "by_tag");
	for (uint32_t t = 0; t < row->tag_count; t++)
		vt_json_u64(json, vt_tag_name(row->tags[t].tag), row->tags[t].bytes);
	vt_json_end_object(json);
}

/* top_stacks: what a moment or an out-of-memory snapshot saw live. */
static void write_top_stacks(struct vt_json *json, const struct vt_stack_bytes *stacks,
			     uint32_t count, struct vt_stack_ids *set)
{
	vt_json_begin_array(json, "top_stacks");
	for (uint32_t i = 0; i < count; i++) {
		const struct vt_stack_bytes *top = &stacks[i];
		vt_json_begin_object(json, NULL);
		WRITE_FIELDS(VT_SCHEMA_TOP_STACK)
		vt_json_end_object(json);
	}
	vt_json_end_array(json);
}

/* The stacks live at a row's highest point (moments.h), or null where the
 * history did not reach it. */
static void write_moment_stacks(struct vt_json *json, const struct vt_moment *moment,
				struct vt_stack_ids *set)
{
	if (!moment || !moment->kept)
		vt_json_null(json, "top_stacks");
	else
		write_top_stacks(json, moment->stacks, moment->count, set);
}

static void write_rows(struct vt_json *json, const struct vt_timeline *timeline,
		       const struct vt_moment *moments, struct vt_stack_ids *set)
{
	vt_json_begin_array(json, "rows");
	for (uint32_t i = 0; i < timeline->count; i++) {
		const struct vt_timeline_row *row = &timeline->rows[i];
		vt_json_begin_object(json, NULL);
		const struct vt_moment *moment = moments ? &moments[i] : NULL;
		WRITE_FIELDS(VT_SCHEMA_ROW)
		vt_json_end_object(json);
	}
	vt_json_end_array(json);
}

/* An emergency report replays nothing: it may not allocate. */
static void write_timeline(struct vt_json *json, const struct vt_report *report,
			   const struct vt_device_stats *stats, struct vt_stack_ids *set)
{
	const struct vt_timeline *timeline = &stats->timeline;
	const struct vt_history *history = &stats->history;
	uint64_t end_ns = report->snapshot->taken_ns;
	struct vt_moment *moments = report->emergency ? NULL : vt_moments_replay(history, timeline);
	vt_json_begin_object(json, "timeline");
	WRITE_FIELDS(VT_SCHEMA_TIMELINE)
	vt_json_end_object(json);
	free(moments);
}

static void write_live_by_tag(struct vt_json *json, const struct vt_oom_snapshot *snapshot)
{
	vt_json_begin_object(json, "live_by_tag");
	for (uint32_t i = 0; i < snapshot->tag_count; i++)
		vt_json_u64(json, vt_tag_name(snapshot->tags[i].tag), snapshot->tags[i].bytes);
	vt_json_end_object(json);
}

static void write_snapshot(struct vt_json *json, const struct vt_oom_snapshot *snapshot,
			   struct vt_stack_ids *set)
{
	if (!snapshot) {
		vt_json_null(json, "snapshot");
		return;
	}
	vt_json_begin_object(json, "snapshot");
	WRITE_FIELDS(VT_SCHEMA_SNAPSHOT)
	vt_json_end_object(json);
}

static void write_crossings(struct vt_json *json, const struct vt_snapshot *snapshot, int device,
			    struct vt_stack_ids *set)
{
	vt_json_begin_array(json, "crossings");
	for (unsigned i = 0; i < snapshot->crossing_count; i++) {
		const struct vt_crossing *crossing = &snapshot->crossings[i];
		if (crossing->device != device)
			continue;
		vt_json_begin_object(json, NULL);
		WRITE_FIELDS(VT_SCHEMA_CROSSING)
		vt_json_end_object(json);
	}
	vt_json_end_array(json);
}

/* VRAMTRACE_WATERMARK's mark and each crossing of it, with what was live;
 * null when no watermark was set for the device, absent for the host. */
static void write_watermark(struct vt_json *json, const struct vt_snapshot *snapshot,
			    const struct vt_device_stats *stats, int device,
			    struct vt_stack_ids *set)
{
	if (device == VT_HOST_DEVICE)
		return;
	if (!stats->watermark_high) {
		vt_json_null(json, "watermark");
		return;
	}
	vt_json_begin_object(json, "watermark");
	WRITE_FIELDS(VT_SCHEMA_WATERMARK)
	vt_json_end_object(json);
}

static void write_failures(struct vt_json *json, const struct vt_snapshot *snapshot, int device,
			   struct vt_stack_ids *set)
{
	vt_json_begin_array(json, "failures");
	for (unsigned i = 0; i < snapshot->failure_count; i++) {
		const struct vt_failure *failure = &snapshot->failures[i];
		if (failure->device != device)
			continue;
		vt_json_begin_object(json, NULL);
		WRITE_FIELDS(VT_SCHEMA_FAILURE)
		vt_json_end_object(json);
	}
	vt_json_end_array(json);
}

/* The numbers shared by a device and the host section. */
static void write_totals(struct vt_json *json, const struct vt_report *report,
			 const struct vt_device_stats *stats, int device, struct vt_stack_ids *set)
{
	WRITE_FIELDS(VT_SCHEMA_TOTALS)
}

/* NVML's view beside the tracked one; unexplained is what no allocation
 * call accounts for: context, module images, rounding, hidden allocations. */
static void write_device_view(struct vt_json *json, const struct vt_report *report, int device)
{
	const struct vt_device_view *view = report->views ? &report->views[device] : NULL;
	uint64_t tracked_peak = report->snapshot->devices[device].peak;
	if (!view || !view->sampled) {
		vt_json_null(json, "device_view");
		return;
	}
	vt_json_begin_object(json, "device_view");
	/* sampled_at_peak is false when no reading caught the tracked peak
	 * itself: the figures then describe the reading closest to it. */
	WRITE_FIELDS(VT_SCHEMA_DEVICE_VIEW)
	vt_json_end_object(json);
}

static void write_reserve_fields(struct vt_json *json, const struct vt_reserve_view *memory)
{
	WRITE_FIELDS(VT_SCHEMA_RESERVE)
}

/* What the device's graphs hold, sampled after every launch and trim once
 * a graph allocation node exists; null when none does. */
static void write_graph_memory(struct vt_json *json, const struct vt_report *report, int device)
{
	const struct vt_graph_view *graphs = report->graphs ? &report->graphs[device] : NULL;
	if (!graphs || !graphs->sampled) {
		vt_json_null(json, "graph_memory");
		return;
	}
	vt_json_begin_object(json, "graph_memory");
	write_reserve_fields(json, &graphs->memory);
	WRITE_FIELDS(VT_SCHEMA_GRAPH_MEMORY)
	vt_json_end_object(json);
}

/* The stream-ordered pools allocated from on this device: reserved is the
 * device memory each holds, used what its live allocations take. */
static void write_pools(struct vt_json *json, const struct vt_report *report, int device)
{
	vt_json_begin_array(json, "pools");
	for (size_t i = 0; i < report->pool_count; i++) {
		const struct vt_pool_view *pool = &report->pools[i];
		if (pool->device != device)
			continue;
		vt_json_begin_object(json, NULL);
		write_reserve_fields(json, &pool->memory);
		WRITE_FIELDS(VT_SCHEMA_POOL)
		vt_json_end_object(json);
	}
	vt_json_end_array(json);
}

static void write_device(struct vt_json *json, const struct vt_report *report, int device,
			 struct vt_stack_ids *set)
{
	const struct vt_device_info *info = &report->devices[device];
	vt_json_begin_object(json, NULL);
	WRITE_FIELDS(VT_SCHEMA_DEVICE)
	write_totals(json, report, &report->snapshot->devices[device], device, set);
	vt_json_end_object(json);
}

/* "subscribed", why CUPTI was asked for and is not used, or null when it
 * was not asked for. */
static void write_cupti_status(struct vt_json *json, const struct vt_cupti_view *cupti)
{
	if (cupti && cupti->status.subscribed)
		vt_json_string(json, "cupti", "subscribed");
	else if (cupti && cupti->status.note[0])
		vt_json_string(json, "cupti", cupti->status.note);
	else
		vt_json_null(json, "cupti");
}

static void write_resource_events(struct vt_json *json, const struct vt_cupti_view *cupti)
{
	vt_json_begin_array(json, "events");
	for (size_t i = 0; i < cupti->count; i++) {
		const struct vt_resource_event *event = &cupti->events[i];
		vt_json_begin_object(json, NULL);
		WRITE_FIELDS(VT_SCHEMA_RESOURCE_EVENT)
		vt_json_end_object(json);
	}
	vt_json_end_array(json);
}

/* Contexts and modules as CUPTI's resource domain saw them: where the
 * memory before the first allocation goes. Null without CUPTI. */
static void write_resources(struct vt_json *json, const struct vt_cupti_view *cupti)
{
	if (!cupti || !cupti->status.subscribed) {
		vt_json_null(json, "resources");
		return;
	}
	vt_json_begin_object(json, "resources");
	WRITE_FIELDS(VT_SCHEMA_RESOURCES)
	vt_json_end_object(json);
}

static void write_sources(struct vt_json *json, unsigned recording)
{
	vt_json_begin_array(json, "sources");
	if (recording & VT_SOURCE_HOOKS)
		vt_json_string(json, NULL, "hooks");
	if (recording & VT_SOURCE_CUPTI)
		vt_json_string(json, NULL, "cupti");
	vt_json_end_array(json);
}

static void write_left_out(struct vt_json *json, unsigned left_out)
{
	static const char *const names[] = {"leaks",        "symbols",   "device_view", "pools",
					    "graph_memory", "resources", "tags"};
	vt_json_begin_array(json, "left_out");
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (left_out & (1u << i))
			vt_json_string(json, NULL, names[i]);
	vt_json_end_array(json);
}

static void write_nvml(struct vt_json *json, const struct vt_nvml_status *nvml)
{
	if (!nvml)
		vt_json_null(json, "nvml");
	else if (nvml->available)
		vt_json_string(json, "nvml", "available");
	else
		vt_json_string(json, "nvml", nvml->reason);
}

static void write_tracer(struct vt_json *json, const struct vt_report *report)
{
	const struct vt_snapshot *snapshot = report->snapshot;
	const struct vt_tracer_counters *counters = &snapshot->counters;
	vt_json_begin_object(json, "tracer");
	WRITE_FIELDS(VT_SCHEMA_TRACER)
	vt_json_end_object(json);
}

/* A row of the listings: a device's listed stacks at one place with one
 * tag, as the tools and the summary show them. */
struct group_row {
	uint32_t group, tag, members;
	uint64_t peak;
};

struct group_member {
	uint32_t group, tag, stack;
};

static int by_group_and_tag(const void *x, const void *y)
{
	const struct group_member *a = x, *b = y;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return (a->tag > b->tag) - (a->tag < b->tag);
}

/* The rows of two stacks or more among members (sorted), each stack's row
 * into row_of (index plus one); returns how many. */
static uint32_t shared_rows(const struct group_member *members, uint32_t count, uint32_t *row_of,
			    struct group_row *rows)
{
	uint32_t found = 0;
	for (uint32_t i = 0, end; i < count; i = end) {
		for (end = i + 1; end < count && by_group_and_tag(&members[i], &members[end]) == 0;)
			end++;
		if (end - i < 2)
			continue;
		rows[found++] = (struct group_row){members[i].group, members[i].tag, end - i, 0};
		for (uint32_t m = i; m < end; m++)
			row_of[members[m].stack] = found;
	}
	return found;
}

/* The own peak of each row of two stacks or more that a device lists:
 * not the sum of its stacks' peaks, which need not have coincided, but
 * its high point, replayed from the device's history where it kept every
 * change (else the tools give bounds). */
static void write_owner_group_peaks(struct vt_json *json, const struct vt_report *report,
				    const struct vt_device_stats *stats, int device,
				    const struct vt_stack_group_map *groups)
{
	uint32_t size = stats->stacks.size, count = 0;
	uint32_t *order = calloc(report->top ? report->top : 1, sizeof(*order));
	struct vt_top_entry *scratch = calloc(report->top ? report->top : 1, sizeof(*scratch));
	struct group_member *members = NULL;
	uint32_t *row_of = calloc(size ? size : 1, sizeof(*row_of));
	struct group_row *rows = NULL;
	if (order && scratch && row_of)
		count = vt_report_top_stacks(stats, report->top, order, scratch);
	members = count ? malloc(count * sizeof(*members)) : NULL;
	rows = count ? malloc(count * sizeof(*rows)) : NULL;
	uint32_t row_count = 0;
	if (members && rows) {
		for (uint32_t i = 0; i < count; i++)
			members[i] =
				(struct group_member){vt_stack_group_of(groups, order[i]),
						      stats->stacks.items[order[i]].tag, order[i]};
		qsort(members, count, sizeof(*members), by_group_and_tag);
		row_count = shared_rows(members, count, row_of, rows);
	}
	uint64_t *peaks = row_count ? malloc(row_count * sizeof(*peaks)) : NULL;
	if (peaks && vt_sets_replay(&stats->history, row_of, size, row_count, peaks)) {
		for (uint32_t r = 0; r < row_count; r++) {
			const struct group_row *row = &rows[r];
			rows[r].peak = peaks[r];
			vt_json_begin_object(json, NULL);
			WRITE_FIELDS(VT_SCHEMA_GROUP_PEAK)
			vt_json_end_object(json);
		}
	}
	free(peaks);
	free(rows);
	free(members);
	free(row_of);
	free(scratch);
	free(order);
}

/* An emergency report replays nothing (it may not allocate), nor does a
 * report whose stacks were not symbolized (no groups). */
static void write_group_peaks(struct vt_json *json, const struct vt_report *report,
			      const struct vt_stack_group_map *groups)
{
	vt_json_begin_array(json, "group_peaks");
	bool replay = !report->emergency && groups->stacks;
	for (int d = 0; replay && d < VT_MAX_DEVICES; d++)
		if (report->snapshot->devices[d].seen)
			write_owner_group_peaks(json, report, &report->snapshot->devices[d], d,
						groups);
	if (replay)
		write_owner_group_peaks(json, report, &report->snapshot->host, VT_HOST_DEVICE,
					groups);
	vt_json_end_array(json);
}

static bool write_json(const struct vt_report *report, int fd, uint64_t deadline_ns, bool socket)
{
	struct vt_json json;
	static uint32_t emergency_ids[VT_REPORT_EMERGENCY_STACKS];
	struct vt_stack_ids set = {0};
	if (report->emergency)
		set = (struct vt_stack_ids){emergency_ids, 0, VT_REPORT_EMERGENCY_STACKS, true};
	vt_json_init(&json, fd);
	json.deadline_ns = deadline_ns;
	json.socket = socket;
	vt_json_begin_object(&json, NULL);
	vt_json_string(&json, "schema", VT_REPORT_SCHEMA);
	write_run(&json, report->run);
	vt_json_begin_array(&json, "devices");
	for (int d = 0; d < VT_MAX_DEVICES; d++)
		if (report->snapshot->devices[d].seen)
			write_device(&json, report, d, &set);
	vt_json_end_array(&json);
	vt_json_begin_object(&json, "host");
	write_totals(&json, report, &report->snapshot->host, VT_HOST_DEVICE, &set);
	vt_json_end_object(&json);
	struct vt_stack_group_map groups;
	vt_stack_frames_write(&json, report->symbolizer, &set, &groups);
	write_group_peaks(&json, report, &groups);
	free(groups.stacks);
	write_resources(&json, report->cupti);
	write_tracer(&json, report);
	vt_json_end_object(&json);
	if (!set.fixed)
		free(set.ids);
	return vt_json_finish(&json);
}

bool vt_report_write_json(const struct vt_report *report, int fd)
{
	return write_json(report, fd, 0, false);
}

bool vt_report_write_json_to_socket(const struct vt_report *report, int fd, uint64_t deadline_ns)
{
	return write_json(report, fd, deadline_ns, true);
}
