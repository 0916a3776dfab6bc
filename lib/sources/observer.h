/* What vramtrace does around one driver entry point, written once against
 * the call's parameters as CUPTI's generated_cuda_meta.h lays them out: the
 * symbol hook packs its arguments into that struct, a CUPTI callback is
 * handed it, and both record the call through the same observer. */
#pragma once

#include <cupti.h> /* the parameter structs, generated_cuda_meta.h */

/* The table interpose calls down through (interpose/observe.h), one per
 * entry point. Both halves are called only in the outermost call a
 * recording source sees on the thread, after activation (a hook wrapper
 * activates first; CUPTI calls back only once activation started it),
 * with the tracer's recursion guard held and errno kept for them; never
 * from a handler of the tracer's. They may allocate, take the tracker's
 * locks and ask the real driver (driver_query.h), never a hooked entry
 * point. They may run after the final report (the runtime's teardown at
 * exit): what they record then is not in it. */
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
