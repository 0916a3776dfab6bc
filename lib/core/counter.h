/* One counter per (device, kind), (device, tag) and (device, stack): its
 * live bytes, its own peak, and its bytes at the device's peak, kept without
 * ever scanning counters. A new device peak only bumps the device's epoch;
 * a counter whose epoch is stale has not changed since that peak, so its
 * live bytes are its bytes at the peak, and it copies them aside before it
 * next changes. */
#pragma once

#include <stdint.h>

struct vt_counter {
	uint64_t live;
	uint64_t peak;
	uint64_t at_peak; /* valid while epoch is the device's epoch */
	uint64_t allocs;
	uint64_t frees;
	uint64_t bytes_allocated;
	uint32_t epoch;
	uint32_t tag; /* for a stack: the tag of its latest allocation */
};

static inline void vt_counter_refresh(struct vt_counter *counter, uint32_t epoch)
{
	if (counter->epoch != epoch) {
		counter->at_peak = counter->live;
		counter->epoch = epoch;
	}
}

static inline void vt_counter_grow(struct vt_counter *counter, uint64_t bytes, uint32_t epoch)
{
	vt_counter_refresh(counter, epoch);
	counter->live += bytes;
	if (counter->live > counter->peak)
		counter->peak = counter->live;
}

static inline void vt_counter_shrink(struct vt_counter *counter, uint64_t bytes, uint32_t epoch)
{
	vt_counter_refresh(counter, epoch);
	counter->live -= bytes;
}

static inline uint64_t vt_counter_at_peak(const struct vt_counter *counter, uint32_t epoch)
{
	return counter->epoch == epoch ? counter->at_peak : counter->live;
}
