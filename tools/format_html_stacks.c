/* What the report page's tables and flame graph draw of the stacks, put in
 * the page's data by the tool (stack_view.h), so that the page shows what
 * the text shows and knows no rule of its own: each frame marked as
 * plumbing or as a library's; each stack's brief view (the program's own
 * line first, the library frames before it folded); per device and the
 * host, one row per place and tag with its figures combined, and what the
 * rows leave out of the peak. */
#include "json_build.h"
#include "format_html_stacks.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "../lib/core/plumbing.h"
#include "stack_view.h"

static void mark_frame(json_t *frame)
{
	if (!json_is_object(frame))
		return;
	const char *module = json_string_value(json_object_get(frame, "module"));
	const char *function = json_string_value(json_object_get(frame, "function"));
	const char *file = json_string_value(json_object_get(frame, "file"));
	if (vt_plumbing_frame(module ? module : "", function))
		vt_json_put(frame, "plumbing", json_true());
	char library[64] = "";
	if (!vt_frame_own(module, file, json_is_true(json_object_get(frame, "python")), library,
			  sizeof(library)))
		vt_json_put(frame, "library", vt_json_text(library[0] ? library : "?"));
}

static void mark_frames(json_t *document)
{
	size_t i, j;
	json_t *frame, *stack;
	json_array_foreach (json_object_get(document, "frames"), i, frame)
		mark_frame(frame);
	json_array_foreach (json_object_get(document, "stack_frames"), i, stack)
		json_array_foreach (json_object_get(stack, "frames"), j, frame)
			mark_frame(frame);
}

/* Each stack's brief view: "brief", the indices of its frames shown;
 * "via", the fold before them; "more", the frames left after them. */
static void add_briefs(const struct vt_report_model *report, json_t *document,
		       const struct vt_view_options *view)
{
	size_t i;
	json_t *entry;
	struct vt_stack_picks picks;
	json_array_foreach (json_object_get(document, "stack_frames"), i, entry) {
		vt_stack_picks(report, json_integer_value(json_object_get(entry, "id")), view,
			       &picks);
		json_t *brief = json_array();
		for (size_t p = 0; p < picks.count; p++)
			vt_json_push(brief, json_integer((json_int_t)picks.index[p]));
		vt_json_put(entry, "brief", brief);
		if (picks.via[0])
			vt_json_put(entry, "via", vt_json_text(picks.via));
		vt_json_put(entry, "more", json_integer((json_int_t)picks.left));
	}
}

static json_t *group_json(const struct vt_stack_group *group, size_t rank)
{
	const struct vt_counters *sum = &group->sum;
	return json_pack("{s:I, s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "rank",
			 (json_int_t)rank, "id", (json_int_t)group->id, "tag",
			 group->tag ? group->tag : "untagged", "stacks", (json_int_t)group->members,
			 "at_peak_bytes", (json_int_t)sum->at_peak_bytes, "peak_bytes",
			 (json_int_t)sum->peak_bytes, "peak_low_bytes", (json_int_t)group->peak_low,
			 "live_at_exit_bytes", (json_int_t)sum->live_at_exit_bytes, "allocations",
			 (json_int_t)sum->allocations, "bytes_allocated",
			 (json_int_t)sum->bytes_allocated);
}

/* A set of stack ids (an object keyed by the id in decimal): the stacks
 * whose frames and figures a page trimmed by --top keeps. */
static void keep_stack(json_t *keep, json_int_t id)
{
	char key[24];
	snprintf(key, sizeof(key), "%" JSON_INTEGER_FORMAT, id);
	if (keep && !json_object_get(keep, key))
		vt_json_put(keep, key, json_true());
}

static bool kept(json_t *keep, json_t *id)
{
	char key[24];
	snprintf(key, sizeof(key), "%" JSON_INTEGER_FORMAT, json_integer_value(id));
	return json_is_integer(id) && json_object_get(keep, key);
}

/* "stack_groups", the rows most bytes at the peak first (the first top of
 * them, top 0 for all), and "stack_rest": the stacks not listed (their
 * count, null where the report does not say) and their bytes, and the
 * bytes allocated with no stack. Rows left out by top count as not
 * listed; the stacks of the rows listed go into keep. */
static void add_groups(const struct vt_report_model *report, const struct vt_owner *owner,
		       json_t *shown, long top, json_t *keep)
{
	struct vt_stack_group *groups;
	size_t count = vt_stack_groups(report, owner, &groups);
	size_t listed = top > 0 && (size_t)top < count ? (size_t)top : count;
	json_t *rows = json_array();
	for (size_t i = 0; i < listed; i++)
		vt_json_push(rows, group_json(&groups[i], i + 1));
	vt_json_put(shown, "stack_groups", rows);
	struct vt_stack_rest rest;
	vt_stack_rest(owner, &rest);
	for (size_t i = 0; i < listed; i++)
		keep_stack(keep, groups[i].id);
	for (size_t i = listed; i < count; i++) {
		rest.bytes += groups[i].sum.at_peak_bytes;
		rest.stacks.value += (int64_t)groups[i].members_at_peak;
	}
	free(groups);
	vt_json_put(shown, "stack_rest",
		    json_pack("{s:o, s:I, s:I}", "stacks",
			      rest.stacks.has ? json_integer((json_int_t)rest.stacks.value)
					      : json_null(),
			      "bytes", (json_int_t)rest.bytes, "no_stack_bytes",
			      (json_int_t)rest.no_stack_bytes));
}

/* "leak_groups": the leaks at one place with one tag as one row, as the
 * text lists them, with the rank of the stack row at their place with
 * their tag. */
static void add_leak_groups(const struct vt_report_model *report, const struct vt_owner *owner,
			    json_t *shown, long top, json_t *keep)
{
	struct vt_leak_group *rows;
	size_t count = vt_leak_groups(report, owner, &rows);
	if (top > 0 && (size_t)top < count)
		count = (size_t)top;
	/* The rank of the row at each place with each tag, found once: a
	 * lookup per leak keeps 32k leaks of 32k places linear. */
	struct vt_stack_group *groups;
	size_t group_count = vt_stack_groups(report, owner, &groups);
	/* Only the rows the page lists: a leak named "stack row #4" of a
	 * page cut to three rows. */
	if (top > 0 && (size_t)top < group_count)
		group_count = (size_t)top;
	json_t *ranks = vt_json_checked(vt_stack_group_ranks(report, groups, group_count));
	json_t *list = json_array();
	struct vt_live_at_exit rest;
	vt_live_at_exit(owner, &rest);
	for (size_t i = 0; i < count; i++) {
		rest.bytes -= rows[i].bytes;
		rest.allocations -= rows[i].allocations;
		const struct vt_maybe *stack = &rows[i].first->stack;
		if (stack->has)
			keep_stack(keep, stack->value);
		size_t rank = stack->has && ranks
				      ? vt_stack_group_rank(report, ranks, rows[i].first->tag,
							    stack->value)
				      : 0;
		vt_json_push(
			list,
			json_pack("{s:I, s:I, s:s, s:o, s:o}", "bytes", (json_int_t)rows[i].bytes,
				  "count", (json_int_t)rows[i].allocations, "tag",
				  rows[i].first->tag ? rows[i].first->tag : "untagged", "stack",
				  stack->has ? json_integer((json_int_t)stack->value) : json_null(),
				  "rank", rank ? json_integer((json_int_t)rank) : json_null()));
	}
	json_decref(ranks);
	free(groups);
	free(rows);
	vt_json_put(shown, "leak_groups", list);
	/* What --top and the report's own bound leave out of the rows. */
	vt_json_put(shown, "leak_rest",
		    json_pack("{s:I, s:I}", "count", (json_int_t)rest.allocations, "bytes",
			      (json_int_t)rest.bytes));
}

static const struct vt_owner *device_of(const struct vt_report_model *report, json_t *shown)
{
	json_int_t ordinal = json_integer_value(json_object_get(shown, "ordinal"));
	for (size_t i = 0; i < report->device_count; i++)
		if (report->devices[i].ordinal == ordinal)
			return &report->devices[i];
	return NULL;
}

/* The stacks a device's failures and timeline name: each failure's own
 * and its snapshot's, and the moments' (each interval's largest), of
 * which at most MOMENT_STACKS, the first named: 277 intervals of 20
 * stacks each would otherwise keep most of a 16k-stack report. */
#define MOMENT_STACKS 2048

static void keep_named(json_t *owner, json_t *keep)
{
	size_t i, j;
	json_t *failure, *row, *entry;
	json_array_foreach (json_object_get(owner, "failures"), i, failure) {
		keep_stack(keep, json_integer_value(json_object_get(failure, "stack")));
		json_array_foreach (
			json_object_get(json_object_get(failure, "snapshot"), "top_stacks"), j,
			entry)
			keep_stack(keep, json_integer_value(json_object_get(entry, "stack")));
	}
	size_t bound = json_object_size(keep) + MOMENT_STACKS;
	json_array_foreach (json_object_get(json_object_get(owner, "timeline"), "rows"), i, row)
		json_array_foreach (json_object_get(row, "top_stacks"), j, entry)
			if (json_object_size(keep) < bound)
				keep_stack(keep,
					   json_integer_value(json_object_get(entry, "stack")));
}

/* Leaves in array only the entries whose id (under key) keep holds. */
static void keep_only(json_t *array, const char *key, json_t *keep)
{
	size_t to = 0;
	for (size_t i = 0; i < json_array_size(array); i++) {
		json_t *entry = json_array_get(array, i);
		if (kept(keep, json_object_get(entry, key)))
			json_array_set(array, to++, entry);
	}
	while (json_array_size(array) > to)
		json_array_remove(array, json_array_size(array) - 1);
}

static void add_owner_views(const struct vt_report_model *report, const struct vt_owner *owner,
			    json_t *shown, long top, json_t *keep)
{
	add_groups(report, owner, shown, top, keep);
	add_leak_groups(report, owner, shown, top, keep);
	/* The page draws the leaks as rows (leak_groups), never one by one. */
	json_object_del(shown, "leaks");
	if (keep)
		keep_named(shown, keep);
}

void vt_html_stack_views(const struct vt_report_model *report, json_t *document,
			 const struct vt_view_options *view, long top)
{
	json_t *keep = top > 0 ? json_object() : NULL;
	size_t i;
	json_t *device;
	json_array_foreach (json_object_get(document, "devices"), i, device) {
		const struct vt_owner *owner = device_of(report, device);
		if (owner)
			add_owner_views(report, owner, device, top, keep);
	}
	json_t *host = json_object_get(document, "host");
	if (json_is_object(host))
		add_owner_views(report, &report->host, host, top, keep);
	/* With --top, the page holds the stacks it shows, and no other. */
	if (keep) {
		json_array_foreach (json_object_get(document, "devices"), i, device)
			keep_only(json_object_get(device, "stacks"), "id", keep);
		if (json_is_object(host))
			keep_only(json_object_get(host, "stacks"), "id", keep);
		keep_only(json_object_get(document, "stack_frames"), "id", keep);
		json_decref(keep);
	}
	mark_frames(document);
	add_briefs(report, document, view);
}
