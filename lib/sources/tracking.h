/* This process's tracking: the one tracker every event goes to, and
 * whether the process traces at all (it used CUDA, and is not a fork's
 * child that stopped following). Activation starts both; the event path
 * (recording.c), the device views and the library above read them. One
 * instance, vt_tracking. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/tracker.h"

struct vt_tracking {
	/* Set once activation has started every part of the tracer; cleared
	 * in a fork's child until it activates again. */
	atomic_bool active;
	struct vt_tracker tracker;
};

extern struct vt_tracking vt_tracking;

/* A device's tracked live bytes, read without its lock: for the NVML
 * sampler, racing a writer by a sample at most. 0 out of range. */
uint64_t vt_tracking_live(int device);
