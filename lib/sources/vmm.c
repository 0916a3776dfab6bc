/* Virtual memory management, as PyTorch's expandable segments and NCCL use
 * it: physical memory (cuMemCreate) is counted once per handle, whatever
 * address ranges map it; reservations (cuMemAddressReserve) are never
 * counted. A handle's bytes are gone only when it is released and every
 * mapping of it is unmapped. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <uthash.h>

#include "call.h"
#include "driver_hooks.h"
#include "driver_wrappers.h"

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

typedef CUresult (*mem_create_fn)(CUmemGenericAllocationHandle *, size_t,
				  const CUmemAllocationProp *, unsigned long long);

VT_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
			       const CUmemAllocationProp *prop, unsigned long long flags)
{
	VT_REAL("cuMemCreate", VT_LEGACY_STREAM, mem_create_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(handle, size, prop, flags);
	int saved_errno = errno;
	/* Host-located physical memory is host memory: not this device's. */
	bool on_device = prop && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE;
	if (outer && on_device) {
		if (rc == CUDA_SUCCESS)
			vt_emit_alloc_on(VT_KIND_VMM, prop->location.id, HANDLE_KEY(*handle), size,
					 "cuMemCreate");
		else
			vt_emit_failure(VT_KIND_VMM, size, (int)rc, "cuMemCreate");
	}
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*multicast_create_fn)(CUmemGenericAllocationHandle *,
					const CUmulticastObjectProp *);

/* A multicast object is a handle like cuMemCreate's, mapped and released
 * the same way, but the memory behind it is the physical memory bound to
 * it, already counted: it is shown, never counted again. */
VT_EXPORT CUresult cuMulticastCreate(CUmemGenericAllocationHandle *handle,
				     const CUmulticastObjectProp *prop)
{
	VT_REAL("cuMulticastCreate", VT_LEGACY_STREAM, multicast_create_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(handle, prop);
	int saved_errno = errno;
	if (outer && rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_MULTICAST, HANDLE_KEY(*handle), prop->size,
			      "cuMulticastCreate");
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*mem_release_fn)(CUmemGenericAllocationHandle);

VT_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
	VT_REAL("cuMemRelease", VT_LEGACY_STREAM, mem_release_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(handle);
	int saved_errno = errno;
	if (outer && rc == CUDA_SUCCESS) {
		pthread_mutex_lock(&lock);
		struct handle_state *state = state_of(handle, true);
		bool freed = state && (state->released = true, gone(state));
		pthread_mutex_unlock(&lock);
		if (freed || !state)
			vt_emit_free(HANDLE_KEY(handle), VT_KIND_DEVICE, "cuMemRelease");
	}
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*mem_map_fn)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
			       unsigned long long);

VT_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			    CUmemGenericAllocationHandle handle, unsigned long long flags)
{
	VT_REAL("cuMemMap", VT_LEGACY_STREAM, mem_map_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(ptr, size, offset, handle, flags);
	int saved_errno = errno;
	if (outer && rc == CUDA_SUCCESS) {
		struct mapping *mapping = malloc(sizeof(*mapping));
		pthread_mutex_lock(&lock);
		struct handle_state *state = state_of(handle, true);
		if (state)
			state->maps++;
		if (mapping) {
			*mapping = (struct mapping){.start = ptr, .handle = handle};
			HASH_ADD(hh, mappings, start, sizeof(mapping->start), mapping);
		}
		pthread_mutex_unlock(&lock);
	}
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*mem_unmap_fn)(CUdeviceptr, size_t);

VT_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	VT_REAL("cuMemUnmap", VT_LEGACY_STREAM, mem_unmap_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(ptr, size);
	int saved_errno = errno;
	if (outer && rc == CUDA_SUCCESS) {
		uint64_t start = ptr, handle = 0;
		bool freed = false;
		pthread_mutex_lock(&lock);
		struct mapping *mapping = NULL;
		HASH_FIND(hh, mappings, &start, sizeof(start), mapping);
		if (mapping) {
			handle = mapping->handle;
			HASH_DEL(mappings, mapping);
			free(mapping);
			struct handle_state *state = state_of(handle, false);
			if (state && state->maps)
				state->maps--;
			freed = state && gone(state);
		}
		pthread_mutex_unlock(&lock);
		if (freed)
			vt_emit_free(HANDLE_KEY(handle), VT_KIND_DEVICE, "cuMemUnmap");
	}
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}
