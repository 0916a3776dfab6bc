/* The k largest of count values, by index, without sorting them all and
 * without allocating (a fatal signal's handler uses it too). */
#pragma once

#include <stdint.h>

struct vt_top_entry {
	uint64_t value;
	uint32_t index;
};

/* Writes the indices of the (up to) k largest non-zero value(index)s into
 * out, largest first, and returns how many; scratch holds k entries. */
uint32_t vt_top_indices(uint64_t (*value)(uint32_t index, const void *context), const void *context,
			uint32_t count, uint32_t k, struct vt_top_entry *scratch, uint32_t *out);
