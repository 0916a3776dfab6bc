#include "call.h"

#include <stdatomic.h>

#include "../core/stack_capture.h"
#include "../core/stack_walk.h"
#include "../core/stacks.h"
#include "../core/tag_stack.h"
#include "../core/tags.h"
#include "../core/thread_space.h"
#include "../config.h"
#include "driver_query.h"
#include "recording.h"
#include "python.h"

__thread struct vt_call_state vt_call __attribute__((tls_model("initial-exec")));

_Atomic unsigned vt_call_recording = VT_SOURCE_HOOKS;

void vt_sources_set_recording(unsigned sources)
{
	atomic_store_explicit(&vt_call_recording, sources, memory_order_release);
}

unsigned vt_sources_recording(void)
{
	return atomic_load_explicit(&vt_call_recording, memory_order_acquire);
}

static atomic_bool python_frames;

void vt_call_enable_python(void)
{
	atomic_store(&python_frames, true);
}

/* Whether Python frames are read: found at activation, or in a libpython
 * loaded after it. */
static bool python_on(void)
{
	if (atomic_load_explicit(&python_frames, memory_order_acquire))
		return true;
	if (!vt_python_found_late(vt_stack_walk_loads()))
		return false;
	atomic_store_explicit(&python_frames, true, memory_order_release);
	return true;
}

/* Each native frame of the evaluation loop gives way to the run of Python
 * frames it was executing, innermost first; runs the native walk did not
 * reach (its depth ran out) follow at the root. */
static unsigned merge_python(const uintptr_t *native, unsigned count, uintptr_t *out)
{
	uintptr_t python[VT_MAX_STACK_DEPTH];
	unsigned runs[VT_MAX_STACK_DEPTH], run_count;
	unsigned frames =
		vt_python_frames(python, VT_MAX_STACK_DEPTH, runs, VT_MAX_STACK_DEPTH, &run_count);
	unsigned used = 0, next = 0, run = 0;
	for (unsigned i = 0; i < count; i++) {
		if (run < run_count && vt_python_is_eval_pc(native[i])) {
			for (unsigned f = 0; f < runs[run]; f++)
				out[used++] = python[next++];
			run++;
		} else {
			out[used++] = native[i];
		}
	}
	while (next < frames)
		out[used++] = python[next++];
	return used;
}

/* The stack is interned with the tag the API and NVTX gave (untagged for
 * none), so one stack never holds bytes of two tags. */
static uint32_t capture_stack(unsigned depth, uint32_t tag)
{
	uintptr_t frames[VT_MAX_STACK_DEPTH], merged[VT_MAX_STACK_FRAMES];
	unsigned got = vt_stack_capture(frames, depth);
	if (!python_on())
		return vt_stack_intern(frames, got, tag);
	return vt_stack_intern(merged, merge_python(frames, got, merged), tag);
}

/* Untagged: the module rule's tag, decided once per distinct stack. */
static void attribute_with_stack(void *argument)
{
	struct vt_event *event = argument;
	event->stack = capture_stack(vt_config()->stack_depth, event->tag);
	if (event->tag == VT_TAG_UNTAGGED && event->stack != VT_STACK_NONE)
		event->tag = vt_stack_tag(event->stack);
}

/* Precedence: explicit API tag, NVTX range, module rule, untagged. The
 * walk, the Python frames and the rules run on the tracer's own stack: on
 * the program's, a hook takes little more than its frame, whatever size
 * the program gave its thread. Without that stack, no call stack. */
static void attribute(struct vt_event *event)
{
	event->stack = VT_STACK_NONE;
	event->tag = vt_tag_current();
	if (vt_config()->stack_depth)
		vt_thread_run_on_own_stack(attribute_with_stack, event);
}

/* VT_UNKNOWN_DEVICE - 1: the current context's device, asked of the driver. */
#define CURRENT_DEVICE (VT_UNKNOWN_DEVICE - 1)

static int emit_on(enum vt_op op, enum vt_kind kind, int device, uint64_t address, uint64_t bytes,
		   int error, const char *driver_api);

static int emit(enum vt_op op, enum vt_kind kind, uint64_t address, uint64_t bytes, int error,
		const char *driver_api)
{
	return emit_on(op, kind, CURRENT_DEVICE, address, bytes, error, driver_api);
}

/* Returns the device the event was recorded on. */
static int emit_on(enum vt_op op, enum vt_kind kind, int device, uint64_t address, uint64_t bytes,
		   int error, const char *driver_api)
{
	struct vt_event event = {
		.op = op,
		.kind = kind,
		.device = VT_HOST_DEVICE,
		.address = address,
		.bytes = bytes,
		.error = error,
		.api = vt_call.api ? vt_call.api : driver_api,
		.driver_api = driver_api,
	};
	if (!vt_kind_is_host(kind))
		event.device = device == CURRENT_DEVICE ? vt_driver_current_device() : device;
	attribute(&event);
	vt_record(&event);
	return event.device;
}

int vt_emit_alloc(enum vt_kind kind, uint64_t address, uint64_t bytes, const char *driver_api)
{
	return emit(VT_OP_ALLOC, kind, address, bytes, 0, driver_api);
}

void vt_emit_alloc_on(enum vt_kind kind, int device, uint64_t address, uint64_t bytes,
		      const char *driver_api)
{
	emit_on(VT_OP_ALLOC, kind, device, address, bytes, 0, driver_api);
}

void vt_emit_context(int device, const char *driver_api)
{
	struct vt_event event = {
		.op = VT_OP_CONTEXT,
		.kind = VT_KIND_DEVICE,
		.device = device,
		.api = vt_call.api ? vt_call.api : driver_api,
		.driver_api = driver_api,
	};
	vt_record(&event);
}

void vt_emit_level(enum vt_kind kind, int device, uint64_t bytes, const char *driver_api)
{
	emit_on(VT_OP_LEVEL, kind, device, VT_GRAPH_LEVEL_ADDRESS(device), bytes, 0, driver_api);
}

void vt_emit_failure(enum vt_kind kind, uint64_t bytes, int error, const char *driver_api)
{
	emit(VT_OP_ALLOC_FAILED, kind, 0, bytes, error, driver_api);
}

void vt_emit_failure_on(enum vt_kind kind, int device, uint64_t bytes, int error,
			const char *driver_api)
{
	emit_on(VT_OP_ALLOC_FAILED, kind, device, 0, bytes, error, driver_api);
}

void vt_emit_free(uint64_t address, enum vt_kind family)
{
	vt_record_free(address, family);
}

void vt_emit_before_giving_back(void)
{
	vt_record_before_giving_back();
}
