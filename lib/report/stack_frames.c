#include "stack_frames.h"

#include <stdlib.h>

#include "../core/stacks.h"

void vt_stack_ids_mention(struct vt_stack_ids *set, uint32_t id)
{
	if (id == VT_STACK_NONE)
		return;
	if (set->count == set->capacity) {
		size_t capacity = set->capacity ? set->capacity * 2 : 64;
		uint32_t *ids = set->fixed ? NULL : realloc(set->ids, capacity * sizeof(*ids));
		if (!ids)
			return;
		set->ids = ids;
		set->capacity = capacity;
	}
	set->ids[set->count++] = id;
}

static void write_frame(struct vt_json *json, const struct vt_frame *frame)
{
	vt_json_begin_object(json, NULL);
	vt_json_string(json, "function", frame->function[0] ? frame->function : NULL);
	vt_json_string(json, "module", frame->module[0] ? frame->module : NULL);
	vt_json_u64(json, "offset", frame->offset);
	vt_json_string(json, "file", frame->file[0] ? frame->file : NULL);
	if (frame->line)
		vt_json_i64(json, "line", frame->line);
	else
		vt_json_null(json, "line");
	if (frame->python)
		vt_json_bool(json, "python", true);
	vt_json_end_object(json);
}

/* An insertion sort: the emergency report's ids are few, and it allocates
 * nothing. */
static void sort_few(uint32_t *ids, size_t count)
{
	for (size_t i = 1; i < count; i++) {
		uint32_t id = ids[i];
		size_t at = i;
		for (; at > 0 && ids[at - 1] > id; at--)
			ids[at] = ids[at - 1];
		ids[at] = id;
	}
}

static int compare_ids(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

static int compare_pcs(const void *x, const void *y)
{
	uintptr_t a = *(const uintptr_t *)x, b = *(const uintptr_t *)y;
	return (a > b) - (a < b);
}

/* Sorts the ids and drops repeats; returns how many are left. */
static size_t distinct_ids(struct vt_stack_ids *set)
{
	if (set->count < 2)
		return set->count; /* nothing to sort, and ids may be NULL */
	if (set->fixed)
		sort_few(set->ids, set->count);
	else
		qsort(set->ids, set->count, sizeof(*set->ids), compare_ids);
	size_t kept = 0;
	for (size_t i = 0; i < set->count; i++)
		if (kept == 0 || set->ids[kept - 1] != set->ids[i])
			set->ids[kept++] = set->ids[i];
	return set->count = kept;
}

/* Each pc of the mentioned stacks once, sorted; NULL when out of memory. */
static uintptr_t *distinct_pcs(const struct vt_stack_ids *set, size_t *count)
{
	size_t total = 0;
	for (size_t i = 0; i < set->count; i++) {
		const uintptr_t *frames;
		total += vt_stack_frames(set->ids[i], &frames);
	}
	uintptr_t *pcs = malloc((total ? total : 1) * sizeof(*pcs));
	if (!pcs)
		return NULL;
	size_t at = 0;
	for (size_t i = 0; i < set->count; i++) {
		const uintptr_t *frames;
		unsigned depth = vt_stack_frames(set->ids[i], &frames);
		for (unsigned f = 0; f < depth; f++)
			pcs[at++] = frames[f];
	}
	qsort(pcs, total, sizeof(*pcs), compare_pcs);
	size_t kept = 0;
	for (size_t i = 0; i < total; i++)
		if (kept == 0 || pcs[kept - 1] != pcs[i])
			pcs[kept++] = pcs[i];
	*count = kept;
	return pcs;
}

static void write_table(struct vt_json *json, struct vt_symbolizer *symbolizer,
			const uintptr_t *pcs, size_t count)
{
	vt_json_begin_array(json, "frames");
	for (size_t i = 0; i < count; i++) {
		struct vt_frame frame = {.pc = pcs[i], .offset = pcs[i]};
		if (symbolizer)
			vt_symbolize(symbolizer, pcs[i], &frame);
		if (frame.python)
			frame.offset = 0;
		write_frame(json, &frame);
	}
	vt_json_end_array(json);
}

/* One stack: its frames as indices into pcs, or in place without them. */
static void write_stack(struct vt_json *json, uint32_t id, const uintptr_t *pcs, size_t count)
{
	const uintptr_t *frames;
	unsigned depth = vt_stack_frames(id, &frames);
	vt_json_begin_object(json, NULL);
	vt_json_u64(json, "id", id);
	if (pcs)
		vt_json_begin_line_array(json, "frames");
	else
		vt_json_begin_array(json, "frames");
	for (unsigned f = 0; f < depth; f++) {
		if (!pcs) {
			write_frame(json, &(struct vt_frame){.pc = frames[f], .offset = frames[f]});
			continue;
		}
		const uintptr_t *at = bsearch(&frames[f], pcs, count, sizeof(*pcs), compare_pcs);
		vt_json_u64(json, NULL, (uint64_t)(at - pcs));
	}
	vt_json_end_array(json);
	vt_json_end_object(json);
}

void vt_stack_frames_write(struct vt_json *json, struct vt_symbolizer *symbolizer,
			   struct vt_stack_ids *set)
{
	distinct_ids(set);
	size_t pc_count = 0;
	uintptr_t *pcs = set->fixed ? NULL : distinct_pcs(set, &pc_count);
	if (pcs)
		write_table(json, symbolizer, pcs, pc_count);
	vt_json_begin_array(json, "stack_frames");
	for (size_t i = 0; i < set->count; i++)
		write_stack(json, set->ids[i], pcs, pc_count);
	vt_json_end_array(json);
	free(pcs);
}
