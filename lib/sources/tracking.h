/* This process's tracking: the one tracker every event goes to, and
 * whether the process traces at all (it used CUDA, and is not a fork's
 * child that stopped following). Activation (interpose/activation.c)
 * starts both, once per process, and fork's child handler forgets them;
 * the event path (recording.c), the device views and the library above
 * read them. One instance, vt_tracking. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/tracker.h"

struct vt_tracking {
	/* Set once activation has started every part of the tracer; cleared
	 * in a fork's child until it activates again. */
	atomic_bool active;
	/* A child after fork with VRAMTRACE_FOLLOW_FORK=0, or forked from
	 * inside the tracer: it never activates. */
	atomic_bool disabled;
	/* Activation runs once per process: a fork's child gets a new one. */
	pthread_once_t once;
	struct vt_tracker tracker;
};

extern struct vt_tracking vt_tracking;

/* Whether this process traces now. */
static inline bool vt_tracking_active(void)
{
	return atomic_load_explicit(&vt_tracking.active, memory_order_acquire);
}

/* A device's tracked live bytes, read without its lock: for the NVML
 * sampler, racing a writer by a sample at most. 0 out of range. */
uint64_t vt_tracking_live(int device);
