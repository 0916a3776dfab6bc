/* Calling an observer around a caught call: its before half, the call,
 * its after half, each half only in the outermost call a recording source
 * sees on the thread (sources/call.h), with errno kept. The symbol hooks'
 * wrappers and CUPTI's callbacks both come through here. */
#pragma once

#include <errno.h>

#include "../sources/call.h"
#include "../sources/observer.h"

/* Runs the observer's before half when this call is the outermost one a
 * recording source sees on the thread; returns what vt_observe_after needs.
 * errno is left as it was. Inline: every hooked call passes here. */
static inline __attribute__((always_inline)) enum vt_layer
vt_observe_before(const struct vt_observer *observer, const void *params, enum vt_source source,
		  uintptr_t frame)
{
	enum vt_layer layer = vt_call_enter(source, frame);
	if (layer == VT_LAYER_OUTER && observer->before) {
		int saved_errno = errno;
		VT_TRACER_WORK();
		observer->before(observer, params);
		errno = saved_errno;
	}
	return layer;
}

static inline __attribute__((always_inline)) void
vt_observe_after(enum vt_layer layer, const struct vt_observer *observer, const void *params,
		 CUresult rc)
{
	if (layer == VT_LAYER_OUTER && observer->after) {
		int saved_errno = errno;
		VT_TRACER_WORK();
		observer->after(observer, params, rc);
		errno = saved_errno;
	}
	vt_call_leave(layer);
}

/* In a hook wrapper: forwards call between the two halves and returns its
 * result. */
#define VT_RETURN_OBSERVED(abi, params, call)                                           \
	do {                                                                            \
		enum vt_layer layer_ =                                                  \
			vt_observe_before(&vt_observe_##abi, (params), VT_SOURCE_HOOKS, \
					  (uintptr_t)__builtin_frame_address(0));       \
		CUresult rc_ = (call);                                                  \
		vt_observe_after(layer_, &vt_observe_##abi, (params), rc_);             \
		return rc_;                                                             \
	} while (0)
