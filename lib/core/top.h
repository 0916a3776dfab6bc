/* The k largest of count values, by index, without sorting them all. */
#pragma once

#include <stdint.h>

/* Writes the indices of the (up to) k largest non-zero value(index)s into
 * out, largest first, and returns how many. */
uint32_t vt_top_indices(uint64_t (*value)(uint32_t index, const void *context), const void *context,
			uint32_t count, uint32_t k, uint32_t *out);
