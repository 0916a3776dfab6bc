#include "stack_frames.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/plumbing.h"
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
	if (frame->inlined)
		vt_json_bool(json, "inlined", true);
	vt_json_end_object(json);
}

const char *vt_frame_place(const struct vt_frame *frame, char *out, size_t size)
{
	const char *module = strrchr(frame->module, '/');
	module = module ? module + 1 : frame->module;
	const char *file = strrchr(frame->file, '/');
	file = file ? file + 1 : frame->file;
	if (frame->function[0] && frame->file[0])
		snprintf(out, size, "%s (%s:%d)", frame->function, file, frame->line);
	else if (frame->function[0])
		snprintf(out, size, "%s (%s)", frame->function, module[0] ? module : "?");
	else
		snprintf(out, size, "%s+0x%" PRIx64, module[0] ? module : "?", frame->offset);
	return out;
}

/* FNV-1a, continued from hash. */
static uint64_t hash_text(uint64_t hash, const char *text)
{
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		hash = (hash ^ *c) * 0x100000001b3ull;
	return (hash ^ 0xff) * 0x100000001b3ull; /* the end of one frame */
}

/* A frame's part in its stack's place: nothing for plumbing, else its
 * place's hash. */
static uint64_t place_hash(const struct vt_frame *frame)
{
	if (vt_plumbing_frame(frame->module, frame->function))
		return 0;
	char place[1600];
	return hash_text(0xcbf29ce484222325ull, vt_frame_place(frame, place, sizeof(place)));
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

/* The table of distinct pcs, symbolized: each pc's frames (more than one
 * where the compiler inlined functions at it). */
struct pc_table {
	const uintptr_t *pcs;
	size_t count;
	uint32_t *first;  /* pc i's frames are first[i] .. first[i + 1] - 1 */
	uint64_t *places; /* pc i's place hash: its frames' together */
};

static void write_table(struct vt_json *json, struct vt_symbolizer *symbolizer,
			struct pc_table *table)
{
	vt_json_begin_array(json, "frames");
	uint32_t written = 0;
	for (size_t i = 0; i < table->count; i++) {
		struct vt_frame frames[VT_INLINE_MAX] = {
			{.pc = table->pcs[i], .offset = table->pcs[i]}};
		unsigned chain = symbolizer ? vt_symbolize_chain(symbolizer, table->pcs[i], frames,
								 VT_INLINE_MAX)
					    : 1;
		table->first[i] = written;
		table->places[i] = 0;
		for (unsigned f = 0; f < chain; f++) {
			if (frames[f].python)
				frames[f].offset = 0;
			write_frame(json, &frames[f]);
			uint64_t place = place_hash(&frames[f]);
			if (place)
				table->places[i] =
					(table->places[i] ^ place) * 0x100000001b3ull + f;
		}
		written += chain;
	}
	table->first[table->count] = written;
	vt_json_end_array(json);
}

static size_t pc_index(const struct pc_table *table, uintptr_t pc)
{
	const uintptr_t *at = bsearch(&pc, table->pcs, table->count, sizeof(pc), compare_pcs);
	return (size_t)(at - table->pcs);
}

/* A stack's place: its tag and the frames it shows (plumbing left out), as
 * one hash; stacks at the same place are one group, listed as one row with
 * one tag. */
static uint64_t stack_place(const struct pc_table *table, uint32_t id)
{
	const uintptr_t *frames;
	unsigned depth = vt_stack_frames(id, &frames);
	uint64_t hash = (0xcbf29ce484222325ull ^ vt_stack_tag(id)) * 0x100000001b3ull;
	for (unsigned f = 0; f < depth; f++) {
		uint64_t place = table->places[pc_index(table, frames[f])];
		if (place)
			hash = (hash ^ place) * 0x100000001b3ull;
	}
	return hash;
}

/* One stack: its frames as indices into the table, or in place without
 * it; and its group, the smallest id of the stacks at its place with its
 * tag. */
static void write_stack(struct vt_json *json, uint32_t id, const struct pc_table *table,
			uint32_t group)
{
	const uintptr_t *frames;
	unsigned depth = vt_stack_frames(id, &frames);
	vt_json_begin_object(json, NULL);
	vt_json_u64(json, "id", id);
	if (table)
		vt_json_u64(json, "group", group);
	if (table)
		vt_json_begin_line_array(json, "frames");
	else
		vt_json_begin_array(json, "frames");
	for (unsigned f = 0; f < depth; f++) {
		if (!table) {
			write_frame(json, &(struct vt_frame){.pc = frames[f], .offset = frames[f]});
			continue;
		}
		size_t at = pc_index(table, frames[f]);
		for (uint32_t index = table->first[at]; index < table->first[at + 1]; index++)
			vt_json_u64(json, NULL, index);
	}
	vt_json_end_array(json);
	vt_json_end_object(json);
}

static int by_place(const void *x, const void *y)
{
	const struct vt_placed_stack *a = x, *b = y;
	if (a->place != b->place)
		return a->place < b->place ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static int by_id(const void *x, const void *y)
{
	const struct vt_placed_stack *a = x, *b = y;
	return (a->id > b->id) - (a->id < b->id);
}

/* Each mentioned stack's group, in the order of set's (sorted) ids. */
static struct vt_placed_stack *group_stacks(const struct pc_table *table,
					    const struct vt_stack_ids *set)
{
	struct vt_placed_stack *placed = malloc((set->count ? set->count : 1) * sizeof(*placed));
	if (!placed)
		return NULL;
	for (size_t i = 0; i < set->count; i++)
		placed[i] =
			(struct vt_placed_stack){stack_place(table, set->ids[i]), set->ids[i], 0};
	qsort(placed, set->count, sizeof(*placed), by_place);
	for (size_t i = 0; i < set->count; i++)
		placed[i].group = i && placed[i - 1].place == placed[i].place ? placed[i - 1].group
									      : placed[i].id;
	qsort(placed, set->count, sizeof(*placed), by_id);
	return placed;
}

uint32_t vt_stack_group_of(const struct vt_stack_group_map *map, uint32_t id)
{
	struct vt_placed_stack key = {.id = id};
	const struct vt_placed_stack *found =
		map->stacks ? bsearch(&key, map->stacks, map->count, sizeof(key), by_id) : NULL;
	return found ? found->group : id;
}

static void write_symbolized(struct vt_json *json, struct vt_symbolizer *symbolizer,
			     const struct vt_stack_ids *set, struct pc_table *table,
			     struct vt_stack_group_map *groups)
{
	write_table(json, symbolizer, table);
	struct vt_placed_stack *placed = group_stacks(table, set);
	vt_json_begin_array(json, "stack_frames");
	for (size_t i = 0; i < set->count; i++)
		write_stack(json, set->ids[i], table, placed ? placed[i].group : set->ids[i]);
	vt_json_end_array(json);
	*groups = (struct vt_stack_group_map){placed, placed ? set->count : 0};
}

void vt_stack_frames_write(struct vt_json *json, struct vt_symbolizer *symbolizer,
			   struct vt_stack_ids *set, struct vt_stack_group_map *groups)
{
	*groups = (struct vt_stack_group_map){0};
	distinct_ids(set);
	struct pc_table table = {0};
	uintptr_t *pcs = set->fixed ? NULL : distinct_pcs(set, &table.count);
	table.pcs = pcs;
	table.first = pcs ? malloc((table.count + 1) * sizeof(*table.first)) : NULL;
	table.places = pcs ? malloc((table.count + 1) * sizeof(*table.places)) : NULL;
	if (table.first && table.places) {
		write_symbolized(json, symbolizer, set, &table, groups);
	} else {
		vt_json_begin_array(json, "stack_frames");
		for (size_t i = 0; i < set->count; i++)
			write_stack(json, set->ids[i], NULL, set->ids[i]);
		vt_json_end_array(json);
	}
	free(table.first);
	free(table.places);
	free(pcs);
}
