/* A bounded record of every change to a device's live bytes, so that what
 * was live at any moment can be told afterwards: each change appends one
 * record (the stack whose bytes changed, and by how much), in order. The
 * report replays it (moments.h) for the stacks live at each timeline row's
 * highest point; no event scans anything.
 *
 * The records are mapped once, on the device's first event, for the whole
 * bound; pages come in as they are written. Past the bound, changes are
 * counted, not kept: kept records never change, so a snapshot may read
 * them after its locks are given back while the device goes on. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct vt_history_record {
	uint64_t bytes; /* the change, modulo 2^64: a decrease is its negation */
	uint32_t stack; /* VT_STACK_NONE when none was captured; padded to 16 bytes */
};

struct vt_history {
	struct vt_history_record *records; /* bound entries; NULL while off */
	uint64_t bound;                    /* 0 while unmapped or off */
	uint64_t changes;                  /* every change noted, kept or not */
};

/* One store on the hot path, with the device locked. */
static inline void vt_history_note(struct vt_history *history, uint32_t stack, uint64_t bytes)
{
	uint64_t at = history->changes++;
	if (__builtin_expect(at < history->bound, 1))
		history->records[at] = (struct vt_history_record){bytes, stack};
}

/* Maps room for bound records (lazily backed); false when it cannot. */
bool vt_history_start(struct vt_history *history, uint64_t bound);
void vt_history_free(struct vt_history *history);

/* Changes kept per device by default: 16 bytes each, 16 MiB at most. */
#define VT_HISTORY_DEFAULT_BOUND (1u << 20)
