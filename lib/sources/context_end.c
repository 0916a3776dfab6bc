/* A context's end destroys what was allocated in it: cuMemAlloc,
 * cuMemAllocPitch, cuMemAllocManaged, cuMemAllocHost and cuMemHostAlloc
 * memory (cuda.h, cuCtxDestroy), never stream-ordered or cuMemCreate
 * memory, which belong to no context. cuCtxDestroy ends a context,
 * cuDevicePrimaryCtxReset (and so cudaDeviceReset) a device's primary one,
 * and cuDevicePrimaryCtxRelease the primary one when it was the last user.
 * Each destroyed allocation is recorded as freed by that call; which are
 * the context's is asked of the driver while they still exist. Arrays are
 * a context's too, but no call names an array's context: they end with a
 * primary context on a device where no other context was ever made, and
 * otherwise stay counted. Once the program has ended (main returned, or
 * exit), the runtime's teardown ends contexts too: what it takes then is
 * what the program left, and stays live for the report. */
#include <stdatomic.h>
#include <stdlib.h>

#include "context_end.h"

#include "../log.h"
#include "call.h"
#include "driver_query.h"
#include "observer.h"
#include "recording.h"

/* Set by the library once exit's status is known. */
static atomic_bool program_ended;

void vt_context_end_note_program_ended(void)
{
	atomic_store(&program_ended, true);
}

/* A bit per device some cuCtxCreate made a context on. */
static _Atomic uint64_t created_on;

void vt_context_made_on(int device)
{
	if (device >= 0 && device < 64)
		atomic_fetch_or(&created_on, 1ull << device);
}

/* Whether the device's arrays are all its primary context's. */
static bool only_primary_on(int device)
{
	return device >= 0 && device < 64 && !(atomic_load(&created_on) & (1ull << device));
}

/* A live allocation a context's end may take, by its free's family
 * (device, array or pinned host memory). */
struct doomed_one {
	uint64_t address; /* or an array's handle */
	enum vt_kind family;
	bool certain; /* an array: the driver is not asked */
};

struct doomed {
	int device; /* the context's: only its memory and the host's can be */
	bool arrays_too;
	struct doomed_one *items;
	size_t count, capacity;
	bool short_of_memory;
};

static bool owned_by_a_context(enum vt_kind kind)
{
	return kind == VT_KIND_DEVICE || kind == VT_KIND_MANAGED || kind == VT_KIND_PINNED_HOST;
}

/* Called with a device locked: no driver call here, only the copy. */
static void add_candidate(const struct vt_allocation *allocation, void *context)
{
	struct doomed *doomed = context;
	enum vt_kind kind = (enum vt_kind)allocation->kind;
	bool array = kind == VT_KIND_ARRAY && doomed->arrays_too;
	if ((!owned_by_a_context(kind) && !array) ||
	    (!vt_kind_is_host(kind) && allocation->device != doomed->device))
		return;
	if (doomed->count == doomed->capacity) {
		size_t capacity = doomed->capacity ? doomed->capacity * 2 : 64;
		struct doomed_one *items = realloc(doomed->items, capacity * sizeof(*items));
		if (!items) {
			doomed->short_of_memory = true;
			return;
		}
		doomed->items = items;
		doomed->capacity = capacity;
	}
	doomed->items[doomed->count++] =
		(struct doomed_one){allocation->address,
				    array                   ? VT_KIND_ARRAY
				    : vt_kind_is_host(kind) ? VT_KIND_PINNED_HOST
							    : VT_KIND_DEVICE,
				    array};
}

/* Keeps the candidates made in context, in place. */
static void keep_those_of(struct doomed *doomed, void *context)
{
	size_t kept = 0;
	for (size_t i = 0; i < doomed->count; i++)
		if (doomed->items[i].certain ||
		    vt_driver_pointer_context(doomed->items[i].address) == context)
			doomed->items[kept++] = doomed->items[i];
	doomed->count = kept;
}

static atomic_bool warned_short;

/* The live allocations made in context, a context of device; its arrays
 * too when it is the device's only one. */
static struct doomed made_in(void *context, int device, bool primary)
{
	struct doomed doomed = {.device = device, .arrays_too = primary && only_primary_on(device)};
	if (!context)
		return doomed;
	vt_record_each_live(add_candidate, &doomed);
	if (doomed.short_of_memory)
		vt_warn_once(&warned_short, "out of host memory: some allocations a context's end "
					    "destroyed stay counted as live");
	keep_those_of(&doomed, context);
	return doomed;
}

static void record_and_release(struct doomed *doomed)
{
	for (size_t i = 0; i < doomed->count; i++)
		vt_emit_free(doomed->items[i].address, doomed->items[i].family);
	free(doomed->items);
	*doomed = (struct doomed){0};
}

/* What a cuCtxDestroy of a primary context would take, until it returns. */
static __thread struct doomed destroying __attribute__((tls_model("initial-exec")));

/* Recorded before the call, as every free is, so that no reuse of an
 * address can slip in between. A primary context is the exception: the
 * driver refuses to destroy it (CUDA_ERROR_INVALID_CONTEXT) and everything
 * made in it lives on, so its memory is recorded as freed only once the
 * call has succeeded. */
static void before_destroy(const struct vt_observer *self, const void *args)
{
	const cuCtxDestroy_v2_params *p = args;
	destroying = (struct doomed){0};
	if (atomic_load(&program_ended))
		return;
	int device = vt_driver_context_device(p->ctx);
	struct doomed doomed = made_in(p->ctx, device, false);
	if (doomed.count && p->ctx == vt_driver_active_primary(device))
		destroying = doomed;
	else
		record_and_release(&doomed);
}

static void after_destroy(const struct vt_observer *self, const void *args, CUresult rc)
{
	if (rc != CUDA_SUCCESS)
		destroying.count = 0; /* refused: nothing ended */
	record_and_release(&destroying);
}
VT_OBSERVER(cuCtxDestroy_v2, before_destroy, after_destroy);
/* CUDA 2.0's ABI, with the same argument. */
VT_OBSERVER(cuCtxDestroy, before_destroy, after_destroy);

static void before_reset(const struct vt_observer *self, const void *args)
{
	const cuDevicePrimaryCtxReset_v2_params *p = args;
	if (atomic_load(&program_ended))
		return;
	struct doomed doomed = made_in(vt_driver_active_primary(p->dev), p->dev, true);
	record_and_release(&doomed);
}
VT_OBSERVER(cuDevicePrimaryCtxReset_v2, before_reset, NULL);
/* CUDA 7.0's ABI, with the same argument. */
VT_OBSERVER(cuDevicePrimaryCtxReset, before_reset, NULL);

/* A release ends the context only when it was the last: what it would take
 * is found before, and recorded once the context is seen to have ended. */
static __thread struct doomed releasing __attribute__((tls_model("initial-exec")));

static void before_release(const struct vt_observer *self, const void *args)
{
	(void)self;
	const cuDevicePrimaryCtxRelease_v2_params *p = args;
	releasing = (struct doomed){0};
	if (!atomic_load(&program_ended))
		releasing = made_in(vt_driver_active_primary(p->dev), p->dev, true);
}

static void after_release(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuDevicePrimaryCtxRelease_v2_params *p = args;
	if (releasing.count && (rc != CUDA_SUCCESS || vt_driver_active_primary(p->dev)))
		releasing.count = 0; /* still in use: nothing ended */
	record_and_release(&releasing);
}
VT_OBSERVER(cuDevicePrimaryCtxRelease_v2, before_release, after_release);
/* CUDA 7.0's ABI, with the same argument. */
VT_OBSERVER(cuDevicePrimaryCtxRelease, before_release, after_release);
