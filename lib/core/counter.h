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
	uint32_t tag; /* for a stack: its tag (vt_stack_tag), the same at every change */
};

static inline void vt_counter_refresh(struct vt_counter *counter, uint32_t epoch)
{
	if (counter->epoch != epoch) {
		counter->at_peak = counter->live;
		counter->epoch = epoch;
	}
}

/* Sums of bytes saturate at 2^64 - 1 rather than wrap: a driver that
 * grants absurd sizes (a simulated or broken one) must not make a total
 * small. Past saturation the figures are a bound, no longer exact. */
static inline uint64_t vt_add_bytes(uint64_t a, uint64_t b)
{
	uint64_t sum;
	return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

static inline uint64_t vt_mul_bytes(uint64_t a, uint64_t b)
{
	uint64_t product;
	return __builtin_mul_overflow(a, b, &product) ? UINT64_MAX : product;
}

static inline uint64_t vt_sub_bytes(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static inline void vt_counter_grow(struct vt_counter *counter, uint64_t bytes, uint32_t epoch)
{
	vt_counter_refresh(counter, epoch);
	counter->live = vt_add_bytes(counter->live, bytes);
	if (counter->live > counter->peak)
		counter->peak = counter->live;
}

static inline void vt_counter_shrink(struct vt_counter *counter, uint64_t bytes, uint32_t epoch)
{
	vt_counter_refresh(counter, epoch);
	counter->live = vt_sub_bytes(counter->live, bytes);
}

static inline uint64_t vt_counter_at_peak(const struct vt_counter *counter, uint32_t epoch)
{
	return counter->epoch == epoch ? counter->at_peak : counter->live;
}
