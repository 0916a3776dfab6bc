/* Stream-ordered memory pools: what each one the program allocates from
 * keeps reserved beside what its allocations use. Reserved bytes are the
 * device memory the pool holds; used ones are what the tracked allocations
 * account for, so the difference is pool slack no allocation call shows.
 * The figures come from the real cuMemPoolGetAttribute, read after every
 * pool event through a pointer no hook sees. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reserve.h"

#define VT_MAX_POOLS 64

struct vt_pool_view {
	int device;
	bool destroyed;
	struct vt_reserve_view memory;
};

/* After cuMemAllocAsync: the current device's current pool served it. */
void vt_pools_note_current(void);
/* After an allocation from, or a trim of, this pool. */
void vt_pools_note(void *pool);
/* After a stream-ordered free, which may have shrunk any pool, and before
 * a pool is destroyed. */
void vt_pools_refresh(void);
/* After cuMemPoolDestroy succeeded: the handle is never read again. */
void vt_pools_destroyed(void *pool);
/* Copies up to max pools, in the order first seen; returns how many. */
size_t vt_pools_read(struct vt_pool_view *out, size_t max);
/* Forgets every pool, for the child after fork. */
void vt_pools_reset(void);
