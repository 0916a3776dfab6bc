#include "history.h"

#include <stddef.h>
#include <sys/mman.h>

bool vt_history_start(struct vt_history *history, uint64_t bound)
{
	if (!bound || bound > (UINT64_MAX >> 5))
		return false;
	void *records = mmap(NULL, bound * sizeof(*history->records), PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (records == MAP_FAILED)
		return false;
	history->records = records;
	history->bound = bound;
	return true;
}

void vt_history_free(struct vt_history *history)
{
	if (history->records)
		munmap(history->records, history->bound * sizeof(*history->records));
	*history = (struct vt_history){0};
}
