/* The stacks a report mentions, and their frames: each distinct frame is
 * written once, in the report's "frames" table, and each stack as the
 * indices of its frames, innermost first (pprof's layout), so a report of
 * 100,000 stacks stays tens of megabytes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json_writer.h"
#include "symbolize.h"

/* Every stack id the report mentions. An emergency report keeps them in a
 * fixed array and drops what overflows. */
struct vt_stack_ids {
	uint32_t *ids;
	size_t count;
	size_t capacity;
	bool fixed;
};

void vt_stack_ids_mention(struct vt_stack_ids *set, uint32_t id);

/* A frame's place as every output names it: "function (file:line)",
 * "function (module)" without line information, "module+0xoffset" without
 * a name. Stacks with the same tag whose frames (plumbing left out) are at
 * the same places are one group. */
const char *vt_frame_place(const struct vt_frame *frame, char *out, size_t size);

/* Each mentioned stack's group: the smallest id of the mentioned stacks
 * at its place with its tag. */
struct vt_stack_group_map {
	struct vt_placed_stack {
		uint64_t place;
		uint32_t id;
		uint32_t group;
	} * stacks; /* by id; NULL when the stacks were not symbolized */
	size_t count;
};

/* The group of id, which the map must hold; id itself without a map. */
uint32_t vt_stack_group_of(const struct vt_stack_group_map *map, uint32_t id);

/* "frames" and "stack_frames", symbolized now and only now, and each
 * stack's group into groups (the caller frees groups->stacks). A fixed set
 * (the emergency report, which may not allocate) writes each stack's
 * frames in place instead, unsymbolized, and groups nothing. */
void vt_stack_frames_write(struct vt_json *json, struct vt_symbolizer *symbolizer,
			   struct vt_stack_ids *set, struct vt_stack_group_map *groups);
