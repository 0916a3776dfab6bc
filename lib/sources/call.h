/* What the hooked call in progress on this thread is, so that one
 * allocation becomes one event however many layers it passes through: the
 * runtime hooks only name the call, the outermost driver call a recording
 * source sees (its hook, or a CUPTI callback) records. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/event.h"
#include "../core/lock.h"

#define VT_EXPORT __attribute__((visibility("default")))

/* The hooked calls in progress on this thread. Inline, with the functions
 * below: every hooked call passes them. */
struct vt_call_state {
	unsigned depth;        /* every hooked call, recording or not */
	unsigned driver_depth; /* those a recording source sees */
	const char *api;       /* the outermost runtime call's name */
	uintptr_t outer_frame; /* while depth: the outermost call's frame, 0 if unknown */
	uintptr_t api_frame;   /* the frame of the call that named api */
};
extern __thread struct vt_call_state vt_call
	__attribute__((tls_model("initial-exec"), visibility("hidden")));
/* The sources that record (enum vt_source bits). */
extern _Atomic unsigned vt_call_recording __attribute__((visibility("hidden")));

/* A thread can leave a hooked call without returning from it: a handler
 * of the program's that siglongjmps out of a fault the driver took on a
 * pointer the program passed. The call stays counted as in progress, and
 * every later call on the thread would look nested inside it and go
 * unrecorded (or named after it). A live call's callees all run below its
 * frame (the stack grows down), so a call made at or above the frame of
 * the one recorded is not inside it: that one was abandoned. A handler on
 * an alternate stack above may take a live call for abandoned; its own
 * call is then recorded as the outermost, as it is one, and the counts
 * stay at zero when the interrupted call leaves. The tracer's own stack
 * is not the program's: a call made while the thread is inside the tracer
 * forgets nothing. No call on the way: the hooks keep their frames small. */
static inline void vt_call_forget_abandoned(uintptr_t frame)
{
	if (!frame || vt_tracer_busy)
		return;
	if (vt_call.depth && vt_call.outer_frame && frame >= vt_call.outer_frame) {
		vt_call.depth = 0;
		vt_call.driver_depth = 0;
	}
	if (vt_call.api && frame >= vt_call.api_frame)
		vt_call.api = NULL;
}

/* The frame a new call at or above which finds the calls in progress
 * abandoned: the outermost call's, named by its runtime call where there is
 * one; none when no call is in progress. */
static inline uintptr_t vt_call_recorded_frame(void)
{
	if (vt_call.depth)
		return vt_call.outer_frame;
	return vt_call.api ? vt_call.api_frame : UINTPTR_MAX;
}

/* Runtime hooks: name the call for the driver events beneath it. The
 * outermost name wins. frame is the hook's own. Returns what
 * vt_runtime_leave must restore. */
static inline const char *vt_runtime_enter(const char *api, uintptr_t frame)
{
	if (__builtin_expect(frame >= vt_call_recorded_frame(), 0))
		vt_call_forget_abandoned(frame);
	const char *saved = vt_call.api;
	if (!saved) {
		vt_call.api = api;
		vt_call.api_frame = frame;
	}
	return saved;
}

static inline void vt_runtime_leave(const char *saved)
{
	vt_call.api = saved;
}

/* Python frames join the stacks from now on (the interpreter was found). */
void vt_call_enable_python(void);

/* Which sources record; the hooks alone until CUPTI subscribed. */
void vt_sources_set_recording(unsigned sources);
unsigned vt_sources_recording(void);

/* A driver call as one source sees it: passive when the source does not
 * record, else inner or outer. Only the outermost call on the thread
 * records, so a call seen by a hook and by CUPTI inside it counts once. */
enum vt_layer {
	VT_LAYER_PASSIVE,
	VT_LAYER_INNER,
	VT_LAYER_OUTER,
};

/* Entered after activation (interpose/activation.h): the hook wrappers
 * activate first; CUPTI's callbacks run only once activation started it.
 * A call made while the thread is inside the tracer (from a signal handler
 * that interrupted it) goes through unrecorded: recording would take locks
 * the thread may hold. frame is the hook's own; 0 (a CUPTI callback, whose
 * enter and exit run in frames of their own) checks nothing. The outermost
 * call is known by the frame of the runtime call around it, where there is
 * one: the program's next call is made at least as high. */
static inline enum vt_layer vt_call_enter(enum vt_source source, uintptr_t frame)
{
	if (__builtin_expect(frame >= vt_call_recorded_frame(), 0))
		vt_call_forget_abandoned(frame);
	if (!vt_call.depth)
		vt_call.outer_frame = vt_call.api ? vt_call.api_frame : frame;
	vt_call.depth++;
	if (vt_tracer_busy ||
	    !(__atomic_load_n(&vt_call_recording, __ATOMIC_RELAXED) & (unsigned)source))
		return VT_LAYER_PASSIVE;
	return vt_call.driver_depth++ == 0 ? VT_LAYER_OUTER : VT_LAYER_INNER;
}

/* Never below zero: a call that a handler's took for abandoned leaves
 * after it. */
static inline void vt_call_leave(enum vt_layer layer)
{
	if (vt_call.depth)
		vt_call.depth--;
	if (layer != VT_LAYER_PASSIVE && vt_call.driver_depth)
		vt_call.driver_depth--;
}

/* This thread is inside a hooked CUDA call: the driver (and the simulated
 * NVML beside it) may hold locks of theirs for this very thread. */
static inline bool vt_call_in_progress(void)
{
	return vt_call.depth > 0;
}

/* Returns the device the allocation was recorded on (VT_HOST_DEVICE for a
 * host kind), so a caller need not ask the driver again. */
int vt_emit_alloc(enum vt_kind kind, uint64_t address, uint64_t bytes, const char *driver_api);
/* An allocation on a device the call named (cuMemCreate's location). */
void vt_emit_alloc_on(enum vt_kind kind, int device, uint64_t address, uint64_t bytes,
		      const char *driver_api);
/* A context was made on device (cuCtxCreate, a primary context retained). */
void vt_emit_context(int device, const char *driver_api);
/* A standing reservation on device (graph memory) now holds bytes. */
void vt_emit_level(enum vt_kind kind, int device, uint64_t bytes, const char *driver_api);
void vt_emit_failure(enum vt_kind kind, uint64_t bytes, int error, const char *driver_api);
/* A failed request for device's memory (a pool's, a stream's device). */
void vt_emit_failure_on(enum vt_kind kind, int device, uint64_t bytes, int error,
			const char *driver_api);
/* family is VT_KIND_DEVICE for device-side frees, a host kind for host
 * frees: a free of the wrong family fails in CUDA and leaves memory live. */
void vt_emit_free(uint64_t address, enum vt_kind family);
/* Before a call that may give device memory back but whose free is only
 * known, and recorded, after it returns (cuMemUnmap, cuMemRelease,
 * cuDeviceGraphMemTrim): the device view reads an unread peak now, while
 * the memory is still on the device, as vt_emit_free does for a free. */
void vt_emit_before_giving_back(void);
