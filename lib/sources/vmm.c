/* Virtual memory management, as PyTorch's expandable segments and NCCL use
 * it: physical memory (cuMemCreate) is counted once per handle, whatever
 * address ranges map it; reservations (cuMemAddressReserve) are never
 * counted. A handle's bytes are gone only when it is released and every
 * mapping of it is unmapped. */
#include <pthread.h>
#include <stdlib.h>
#include <uthash.h>

#include "call.h"
#include "observer.h"

/* Handles share the ledger with addresses; this bit keeps them apart. */
#define HANDLE_KEY(handle) ((uint64_t)(handle) | (1ull << 63))

struct handle_state {
	uint64_t handle;
	unsigned maps;
	bool released;
	UT_hash_handle hh;
};

struct mapping {
	uint64_t start;
	uint64_t size;
	uint64_t handle;
	UT_hash_handle hh;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct handle_state *handles;
static struct mapping *mappings;

/* Called with the lock held: the state of handle, created when asked. */
static struct handle_state *state_of(uint64_t handle, bool create)
{
	struct handle_state *state = NULL;
	HASH_FIND(hh, handles, &handle, sizeof(handle), state);
	if (!state && create && (state = calloc(1, sizeof(*state)))) {
		state->handle = handle;
		HASH_ADD(hh, handles, handle, sizeof(state->handle), state);
	}
	return state;
}

/* Called with the lock held: true when the handle's memory is now gone. */
static bool gone(struct handle_state *state)
{
	if (!state->released || state->maps)
		return false;
	HASH_DEL(handles, state);
	free(state);
	return true;
}

/* Host-located physical memory is host memory: not this device's. */
static void after_mem_create(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemCreate_params *p = args;
	if (!p->prop || p->prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return;
	if (rc == CUDA_SUCCESS)
		vt_emit_alloc_on(VT_KIND_VMM, p->prop->location.id, HANDLE_KEY(*p->handle), p->size,
				 self->name);
	else
		vt_emit_failure(VT_KIND_VMM, p->size, (int)rc, self->name);
}
VT_OBSERVER(cuMemCreate, NULL, after_mem_create);

/* A multicast object is a handle like cuMemCreate's, mapped and released
 * the same way, but the memory behind it is the physical memory bound to
 * it, already counted: it is shown, never counted again. */
static void after_multicast_create(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMulticastCreate_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_MULTICAST, HANDLE_KEY(*p->mcHandle), p->prop->size,
			      self->name);
}
VT_OBSERVER(cuMulticastCreate, NULL, after_multicast_create);

static void after_mem_release(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemRelease_params *p = args;
	if (rc != CUDA_SUCCESS)
		return;
	pthread_mutex_lock(&lock);
	struct handle_state *state = state_of(p->handle, true);
	bool freed = state && (state->released = true, gone(state));
	pthread_mutex_unlock(&lock);
	if (freed || !state)
		vt_emit_free(HANDLE_KEY(p->handle), VT_KIND_VMM);
}
/* Whether a release or an unmap ends a handle is known only once the driver
 * took it, when its memory is already gone: the device view's reading at a
 * peak is taken before, while the peak's memory is still on the device. */
static void before_giving_back(const struct vt_observer *self, const void *args)
{
	(void)self, (void)args;
	vt_emit_before_giving_back();
}

VT_OBSERVER(cuMemRelease, before_giving_back, after_mem_release);

static void after_mem_map(const struct vt_observer *self, const void *args, CUresult rc)
{
	(void)self;
	const cuMemMap_params *p = args;
	if (rc != CUDA_SUCCESS)
		return;
	struct mapping *mapping = malloc(sizeof(*mapping));
	pthread_mutex_lock(&lock);
	struct handle_state *state = state_of(p->handle, true);
	if (state)
		state->maps++;
	if (mapping) {
		*mapping = (struct mapping){.start = p->ptr, .size = p->size, .handle = p->handle};
		HASH_ADD(hh, mappings, start, sizeof(mapping->start), mapping);
	}
	pthread_mutex_unlock(&lock);
}
VT_OBSERVER(cuMemMap, NULL, after_mem_map);

/* Called with the lock held: ends the mapping at start; the handle whose
 * memory is now gone, or 0; *size is the mapping's size (0: none there). */
static uint64_t unmap_locked(uint64_t start, uint64_t *size)
{
	struct mapping *mapping = NULL;
	HASH_FIND(hh, mappings, &start, sizeof(start), mapping);
	*size = 0;
	if (!mapping)
		return 0;
	uint64_t handle = mapping->handle;
	*size = mapping->size;
	HASH_DEL(mappings, mapping);
	free(mapping);
	struct handle_state *state = state_of(handle, false);
	if (state && state->maps)
		state->maps--;
	return state && gone(state) ? handle : 0;
}

/* One unmap may cover several mappings lying end to end, each of its own
 * handle, as the driver allows. */
static void after_mem_unmap(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemUnmap_params *p = args;
	if (rc != CUDA_SUCCESS)
		return;
	uint64_t cursor = p->ptr, end = p->ptr + p->size, size = 1;
	while (cursor < end && size) {
		pthread_mutex_lock(&lock);
		uint64_t freed = unmap_locked(cursor, &size);
		pthread_mutex_unlock(&lock);
		if (freed)
			vt_emit_free(HANDLE_KEY(freed), VT_KIND_VMM);
		cursor += size;
	}
}
VT_OBSERVER(cuMemUnmap, before_giving_back, after_mem_unmap);
