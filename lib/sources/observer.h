/* What vramtrace does around one driver entry point, written once against
 * the call's parameters as CUPTI's generated_cuda_meta.h lays them out: the
 * symbol hook packs its arguments into that struct, a CUPTI callback is
 * handed it, and both record the call through the same observer. */
#pragma once

#include <cupti.h> /* the parameter structs, generated_cuda_meta.h */
#include <errno.h>

#include "call.h"

struct vt_observer {
	const char *name; /* the ABI name: the event's driver_api */
	int cbid;         /* CUPTI's id for the same entry point */
	/* Before the call is forwarded: a free is recorded here, so that no
	 * reuse of its address can slip in between. May be NULL. */
	void (*before)(const struct vt_observer *self, const void *params);
	/* After the call returned rc: output pointers hold results only when
	 * rc is CUDA_SUCCESS. May be NULL. */
	void (*after)(const struct vt_observer *self, const void *params, CUresult rc);
};

/* An observer of the entry point exported as abi, with its CUPTI id. */
#define VT_OBSERVER(abi, before_fn, after_fn)                                             \
	const struct vt_observer vt_observe_##abi = {#abi, CUPTI_DRIVER_TRACE_CBID_##abi, \
						     before_fn, after_fn}

/* Runs the observer's before half when this call is the outermost one a
 * recording source sees on the thread; returns what vt_observe_after needs.
 * errno is left as it was. Inline: every hooked call passes here. */
static inline enum vt_layer vt_observe_before(const struct vt_observer *observer,
					      const void *params, enum vt_source source)
{
	enum vt_layer layer = vt_call_enter(source);
	if (layer == VT_LAYER_OUTER && observer->before) {
		int saved_errno = errno;
		vt_tracer_busy++;
		observer->before(observer, params);
		vt_tracer_busy--;
		errno = saved_errno;
	}
	return layer;
}

static inline void vt_observe_after(enum vt_layer layer, const struct vt_observer *observer,
				    const void *params, CUresult rc)
{
	if (layer == VT_LAYER_OUTER && observer->after) {
		int saved_errno = errno;
		vt_tracer_busy++;
		observer->after(observer, params, rc);
		vt_tracer_busy--;
		errno = saved_errno;
	}
	vt_call_leave(layer);
}

/* In a hook wrapper: forwards call between the two halves and returns its
 * result. */
#define VT_RETURN_OBSERVED(abi, params, call)                                            \
	do {                                                                             \
		enum vt_layer layer_ =                                                   \
			vt_observe_before(&vt_observe_##abi, (params), VT_SOURCE_HOOKS); \
		CUresult rc_ = (call);                                                   \
		vt_observe_after(layer_, &vt_observe_##abi, (params), rc_);              \
		return rc_;                                                              \
	} while (0)
