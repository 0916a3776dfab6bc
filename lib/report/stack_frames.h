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
 * a name. Stacks whose frames (plumbing left out) are at the same places
 * are one group. */
const char *vt_frame_place(const struct vt_frame *frame, char *out, size_t size);

/* "frames" and "stack_frames", symbolized now and only now. A fixed set
 * (the emergency report, which may not allocate) writes each stack's
 * frames in place instead, unsymbolized. */
void vt_stack_frames_write(struct vt_json *json, struct vt_symbolizer *symbolizer,
			   struct vt_stack_ids *set);
