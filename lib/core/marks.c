#include "marks.h"

#include <stdlib.h>
#include <string.h>

bool vt_marks_grow(struct vt_marks *marks, uint32_t index)
{
	uint32_t size = index + 16;
	struct vt_mark *items = realloc(marks->items, size * sizeof(*items));
	if (!items)
		return false;
	memset(items + marks->size, 0, (size - marks->size) * sizeof(*items));
	marks->items = items;
	marks->size = size;
	return true;
}

uint64_t vt_marks_value(const struct vt_marks *marks, uint32_t index, uint64_t live)
{
	const struct vt_mark *mark = index < marks->size ? &marks->items[index] : NULL;
	return mark && mark->epoch == marks->epoch ? mark->at_high : live;
}

void vt_marks_free(struct vt_marks *marks)
{
	free(marks->items);
	memset(marks, 0, sizeof(*marks));
}
