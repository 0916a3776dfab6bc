#include "top.h"

/* Larger value first; the smaller index breaks ties, so output is stable. */
static int before(const struct vt_top_entry *a, const struct vt_top_entry *b)
{
	return a->value != b->value ? a->value > b->value : a->index < b->index;
}

static void swap(struct vt_top_entry *a, struct vt_top_entry *b)
{
	struct vt_top_entry t = *a;
	*a = *b;
	*b = t;
}

/* Min-heap on "before": the root is the weakest of those kept. */
static void sift_down(struct vt_top_entry *heap, uint32_t size, uint32_t i)
{
	for (;;) {
		uint32_t weakest = i, left = 2 * i + 1, right = left + 1;
		if (left < size && before(&heap[weakest], &heap[left]))
			weakest = left;
		if (right < size && before(&heap[weakest], &heap[right]))
			weakest = right;
		if (weakest == i)
			return;
		swap(&heap[i], &heap[weakest]);
		i = weakest;
	}
}

static void sift_up(struct vt_top_entry *heap, uint32_t i)
{
	while (i > 0 && before(&heap[(i - 1) / 2], &heap[i])) {
		swap(&heap[i], &heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

uint32_t vt_top_indices(uint64_t (*value)(uint32_t index, const void *context), const void *context,
			uint32_t count, uint32_t k, struct vt_top_entry *scratch, uint32_t *out)
{
	uint32_t size = 0;
	for (uint32_t i = 0; i < count && k; i++) {
		struct vt_top_entry candidate = {value(i, context), i};
		if (candidate.value == 0)
			continue;
		if (size < k) {
			scratch[size] = candidate;
			sift_up(scratch, size++);
		} else if (before(&candidate, &scratch[0])) {
			scratch[0] = candidate;
			sift_down(scratch, size, 0);
		}
	}
	/* Taking the weakest off repeatedly fills out from the back. */
	uint32_t found = size;
	while (size) {
		out[size - 1] = scratch[0].index;
		scratch[0] = scratch[--size];
		sift_down(scratch, size, 0);
	}
	return found;
}
