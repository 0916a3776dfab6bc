#include "live_snapshot.h"

#include <stdlib.h>

#include "memory.h"
#include "top.h"

static uint64_t stack_live(uint32_t index, const void *context)
{
	const struct vt_counter_array *stacks = context;
	return stacks->items[index].live;
}

static int by_bytes(const void *a, const void *b)
{
	const struct vt_tag_bytes *x = a, *y = b;
	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : (int)x->tag - (int)y->tag;
}

struct vt_oom_snapshot *vt_live_snapshot_take(const struct vt_counter_array *tags,
					      const struct vt_counter_array *stacks, unsigned top)
{
	struct vt_oom_snapshot *snapshot = vt_mem_calloc(1, sizeof(*snapshot));
	if (!snapshot)
		return NULL;
	snapshot->tags = vt_mem_calloc(tags->size ? tags->size : 1, sizeof(*snapshot->tags));
	uint32_t *indices = vt_mem_calloc(top ? top : 1, sizeof(*indices));
	struct vt_top_entry *scratch = vt_mem_calloc(top ? top : 1, sizeof(*scratch));
	snapshot->stacks = vt_mem_calloc(top ? top : 1, sizeof(*snapshot->stacks));
	if (snapshot->tags)
		for (uint32_t t = 0; t < tags->size; t++)
			if (tags->items[t].live)
				snapshot->tags[snapshot->tag_count++] =
					(struct vt_tag_bytes){t, tags->items[t].live};
	qsort(snapshot->tags, snapshot->tag_count, sizeof(*snapshot->tags), by_bytes);
	if (indices && scratch && snapshot->stacks) {
		snapshot->stack_count =
			vt_top_indices(stack_live, stacks, stacks->size, top, scratch, indices);
		for (uint32_t i = 0; i < snapshot->stack_count; i++)
			snapshot->stacks[i] =
				(struct vt_stack_bytes){indices[i], stacks->items[indices[i]].live};
	}
	vt_mem_free(indices);
	vt_mem_free(scratch);
	return snapshot;
}

void vt_live_snapshot_free(const struct vt_oom_snapshot *taken)
{
	struct vt_oom_snapshot *snapshot = (struct vt_oom_snapshot *)taken;
	if (snapshot) {
		free(snapshot->tags);
		free(snapshot->stacks);
		free(snapshot);
	}
}
