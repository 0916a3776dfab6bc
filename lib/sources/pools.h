/* Stream-ordered memory pools: what each one the program allocates from
 * keeps reserved beside what its allocations use. Reserved bytes are the
 * device memory the pool holds; used ones are what its live allocations
 * take, so the difference is pool slack no allocation call shows.
 *
 * The figures come from the real cuMemPoolGetAttribute, through a pointer
 * no hook sees. The driver keeps each pool's high-water marks itself, so
 * the allocation path only notes which pools are in play (one handle or
 * one device bit); the figures are read when a pool is trimmed, before it
 * is destroyed or replaced as its device's current pool, and for the
 * report. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/views.h"

/* After cuMemAllocAsync recorded an allocation on device (anything else,
 * VT_UNKNOWN_DEVICE, is ignored): that device's current pool served it. */
void vt_pools_note_current(int device);
/* Likewise after an allocation from pool. A pool is on the device it was
 * created for (cuMemPoolCreate, observed); one first seen by an allocation
 * is taken to be on that allocation's device. */
void vt_pools_note(void *pool, int device);
/* The device a pool in play is on, or VT_UNKNOWN_DEVICE. */
int vt_pools_device(void *pool);
/* Copies up to max pools in play, in the order first seen, and returns
 * how many; with ask_driver, their figures are read from the driver
 * first. */
size_t vt_pools_read(struct vt_pool_view *out, size_t max, bool ask_driver);
/* Forgets every pool, for the child after fork. */
void vt_pools_reset(void);
