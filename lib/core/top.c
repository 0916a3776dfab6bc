#include "top.h"

#include <stdlib.h>

struct entry {
	uint64_t value;
	uint32_t index;
};

/* Larger value first; the smaller index breaks ties, so output is stable. */
static int before(const struct entry *a, const struct entry *b)
{
	return a->value != b->value ? a->value > b->value : a->index < b->index;
}

/* Min-heap on "before": the root is the weakest of the kept k. */
static void sift_down(struct entry *heap, uint32_t size, uint32_t i)
{
	for (;;) {
		uint32_t weakest = i, left = 2 * i + 1, right = left + 1;
		if (left < size && before(&heap[weakest], &heap[left]))
			weakest = left;
		if (right < size && before(&heap[weakest], &heap[right]))
			weakest = right;
		if (weakest == i)
			return;
		struct entry swap = heap[i];
		heap[i] = heap[weakest];
		heap[weakest] = swap;
		i = weakest;
	}
}

static void sift_up(struct entry *heap, uint32_t i)
{
	while (i > 0 && before(&heap[(i - 1) / 2], &heap[i])) {
		struct entry swap = heap[i];
		heap[i] = heap[(i - 1) / 2];
		heap[(i - 1) / 2] = swap;
		i = (i - 1) / 2;
	}
}

static int by_rank(const void *a, const void *b)
{
	return before(a, b) ? -1 : before(b, a) ? 1 : 0;
}

uint32_t vt_top_indices(uint64_t (*value)(uint32_t index, const void *context), const void *context,
			uint32_t count, uint32_t k, uint32_t *out)
{
	struct entry *heap = k ? malloc(k * sizeof(*heap)) : NULL;
	if (!heap)
		return 0;
	uint32_t size = 0;
	for (uint32_t i = 0; i < count; i++) {
		struct entry candidate = {value(i, context), i};
		if (candidate.value == 0)
			continue;
		if (size < k) {
			heap[size] = candidate;
			sift_up(heap, size++);
		} else if (before(&candidate, &heap[0])) {
			heap[0] = candidate;
			sift_down(heap, size, 0);
		}
	}
	qsort(heap, size, sizeof(*heap), by_rank);
	for (uint32_t i = 0; i < size; i++)
		out[i] = heap[i].index;
	free(heap);
	return size;
}
