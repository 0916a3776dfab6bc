/* Stand-in driver: virtual memory management. Physical memory is a handle
 * (cuMemCreate, charged to the device at once); address ranges are
 * reservations (cuMemAddressReserve, PROT_NONE and free of charge); a
 * mapping makes part of a reservation usable. A handle's memory is given
 * back only when it is both released and unmapped everywhere. A multicast
 * object is a handle too, mapped and released the same way, but its memory
 * is what is bound to it, so it costs nothing itself. */
#define _GNU_SOURCE /* memfd_create */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <uthash.h>

#include "sim.h"

struct sim_handle {
	uint64_t id;
	size_t size;
	uint64_t charged; /* a multicast object, or an import, holds no memory of its own */
	int device;
	unsigned handle_types; /* what it may be exported as */
	/* Compression, RDMA and usage flags, granted as asked: the device
	 * supports generic compression. */
	__typeof__(((CUmemAllocationProp *)0)->allocFlags) flags;
	unsigned maps;
	unsigned references; /* cuMemCreate's, and each cuMemRetainAllocationHandle's */
	bool released;       /* every reference released */
	UT_hash_handle hh;
};

struct sim_range {
	uintptr_t start;
	size_t size;
	struct sim_handle *handle; /* NULL for a reservation */
	UT_hash_handle hh;
};

static struct sim_handle *handles;
static struct sim_range *reservations, *mappings;
static uint64_t next_handle = 0x1000;

static bool valid_prop(const CUmemAllocationProp *prop)
{
	return prop && prop->type == CU_MEM_ALLOCATION_TYPE_PINNED &&
	       prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
	       sim_valid_device(prop->location.id);
}

SIM_EXPORT CUresult cuMemGetAllocationGranularity(size_t *granularity,
						  const CUmemAllocationProp *prop,
						  CUmemAllocationGranularity_flags option)
{
	(void)option;
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!granularity || !valid_prop(prop))
		return CUDA_ERROR_INVALID_VALUE;
	*granularity = sim_config()->granularity;
	return CUDA_SUCCESS;
}

/* Called with sim_lock held. */
static void give_back_locked(struct sim_handle *handle)
{
	sim_devices[handle->device].charged -= handle->charged;
	HASH_DEL(handles, handle);
	free(handle);
}

static CUresult untraced_cuMemCreate(CUmemGenericAllocationHandle *out, size_t size,
				     const CUmemAllocationProp *prop, unsigned long long flags)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out || !valid_prop(prop) || flags != 0 || size == 0 ||
	    size % sim_config()->granularity != 0)
		return CUDA_ERROR_INVALID_VALUE;
	int device = prop->location.id;
	struct sim_handle *handle = calloc(1, sizeof(*handle));
	if (!handle)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&sim_lock);
	uint64_t used = sim_device_used(device), capacity = sim_devices[device].capacity;
	if (used > capacity || size > capacity - used) {
		pthread_mutex_unlock(&sim_lock);
		free(handle);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*handle = (struct sim_handle){.id = next_handle,
				      .size = size,
				      .charged = size,
				      .device = device,
				      .handle_types = prop->requestedHandleTypes,
				      .flags = prop->allocFlags,
				      .references = 1};
	next_handle += 0x10;
	HASH_ADD(hh, handles, id, sizeof(handle->id), handle);
	sim_devices[device].charged += size;
	pthread_mutex_unlock(&sim_lock);
	*out = handle->id;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *out, size_t size,
				const CUmemAllocationProp *prop, unsigned long long flags)
{
	cuMemCreate_params params = {out, size, prop, flags};
	return SIM_TRACED(cuMemCreate, &params, untraced_cuMemCreate(out, size, prop, flags));
}

static CUresult untraced_cuMemRelease(CUmemGenericAllocationHandle id)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	pthread_mutex_lock(&sim_lock);
	struct sim_handle *handle = NULL;
	HASH_FIND(hh, handles, &id, sizeof(id), handle);
	if (!handle || handle->released) {
		pthread_mutex_unlock(&sim_lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	handle->released = --handle->references == 0;
	if (handle->released && handle->maps == 0)
		give_back_locked(handle);
	pthread_mutex_unlock(&sim_lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle id)
{
	cuMemRelease_params params = {id};
	return SIM_TRACED(cuMemRelease, &params, untraced_cuMemRelease(id));
}

SIM_EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
					CUdeviceptr addr, unsigned long long flags)
{
	(void)addr;
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	size_t granularity = sim_config()->granularity;
	if (!ptr || size == 0 || size % granularity != 0 || flags != 0 ||
	    (alignment & (alignment - 1)))
		return CUDA_ERROR_INVALID_VALUE;
	size_t align = alignment > granularity ? alignment : granularity;
	/* Over-reserve, then trim to the alignment asked for. */
	char *raw = mmap(NULL, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			 -1, 0);
	struct sim_range *range = raw == MAP_FAILED ? NULL : calloc(1, sizeof(*range));
	if (!range) {
		if (raw != MAP_FAILED)
			munmap(raw, size + align);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	uintptr_t start = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
	if (start > (uintptr_t)raw)
		munmap(raw, start - (uintptr_t)raw);
	if ((uintptr_t)raw + size + align > start + size)
		munmap((void *)(start + size), (uintptr_t)raw + size + align - start - size);
	*range = (struct sim_range){.start = start, .size = size};
	pthread_mutex_lock(&sim_lock);
	HASH_ADD(hh, reservations, start, sizeof(range->start), range);
	pthread_mutex_unlock(&sim_lock);
	*ptr = (CUdeviceptr)start;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	uintptr_t start = (uintptr_t)ptr;
	pthread_mutex_lock(&sim_lock);
	struct sim_range *range = NULL;
	HASH_FIND(hh, reservations, &start, sizeof(start), range);
	if (!range || range->size != size) {
		pthread_mutex_unlock(&sim_lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	HASH_DEL(reservations, range);
	pthread_mutex_unlock(&sim_lock);
	munmap((void *)range->start, range->size);
	free(range);
	return CUDA_SUCCESS;
}

/* Called with sim_lock held: whether [start, start + size) is reserved. */
static bool reserved_locked(uintptr_t start, size_t size)
{
	struct sim_range *range, *tmp;
	HASH_ITER (hh, reservations, range, tmp) {
		if (start >= range->start && start - range->start <= range->size &&
		    size <= range->size - (start - range->start))
			return true;
	}
	return false;
}

bool sim_vmm_mapped_locked(uintptr_t start, size_t bytes)
{
	/* Mappings may lie end to end: walk from one to the next. */
	uintptr_t cursor = start, end = start + bytes;
	for (;;) {
		struct sim_range *mapping, *tmp, *holding = NULL;
		HASH_ITER (hh, mappings, mapping, tmp) {
			if (cursor >= mapping->start && cursor - mapping->start < mapping->size)
				holding = mapping;
		}
		if (!holding)
			return false;
		if (end <= holding->start + holding->size)
			return true;
		cursor = holding->start + holding->size;
	}
}

/* Called with sim_lock held: whether any mapping overlaps
 * [start, start + size). */
static bool overlaps_mapping_locked(uintptr_t start, size_t size)
{
	struct sim_range *mapping, *tmp;
	HASH_ITER (hh, mappings, mapping, tmp) {
		if (mapping->start < start + size && start < mapping->start + mapping->size)
			return true;
	}
	return false;
}

/* cuda.h: ptr, size and offset are multiples of the minimum granularity,
 * and only a range not mapped already can be mapped. */
static CUresult untraced_cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
				  CUmemGenericAllocationHandle id, unsigned long long flags)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	uintptr_t start = (uintptr_t)ptr;
	size_t granularity = sim_config()->granularity;
	if (start % granularity || size % granularity || offset % granularity)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_range *mapping = calloc(1, sizeof(*mapping));
	if (!mapping)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&sim_lock);
	struct sim_handle *handle = NULL;
	HASH_FIND(hh, handles, &id, sizeof(id), handle);
	if (!handle || handle->released || flags != 0 || size == 0 || offset > handle->size ||
	    size > handle->size - offset || !reserved_locked(start, size) ||
	    overlaps_mapping_locked(start, size)) {
		pthread_mutex_unlock(&sim_lock);
		free(mapping);
		return CUDA_ERROR_INVALID_VALUE;
	}
	*mapping = (struct sim_range){.start = start, .size = size, .handle = handle};
	HASH_ADD(hh, mappings, start, sizeof(mapping->start), mapping);
	handle->maps++;
	pthread_mutex_unlock(&sim_lock);
	mprotect((void *)start, size, PROT_READ | PROT_WRITE);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			     CUmemGenericAllocationHandle id, unsigned long long flags)
{
	cuMemMap_params params = {ptr, size, offset, id, flags};
	return SIM_TRACED(cuMemMap, &params, untraced_cuMemMap(ptr, size, offset, id, flags));
}

/* Called with sim_lock held: whether [start, start + size) is made of
 * whole mappings lying end to end, as a real driver unmaps it at once. */
static bool whole_mappings_locked(uintptr_t start, size_t size)
{
	uintptr_t cursor = start;
	while (cursor - start < size) {
		struct sim_range *mapping = NULL;
		HASH_FIND(hh, mappings, &cursor, sizeof(cursor), mapping);
		if (!mapping || mapping->size > size - (cursor - start))
			return false;
		cursor += mapping->size;
	}
	return size != 0;
}

/* Called with sim_lock held: unmaps the mapping at start, giving its
 * handle's memory back once the handle is released and unmapped; returns
 * the mapping's size. */
static size_t unmap_one_locked(uintptr_t start)
{
	struct sim_range *mapping = NULL;
	HASH_FIND(hh, mappings, &start, sizeof(start), mapping);
	HASH_DEL(mappings, mapping);
	struct sim_handle *handle = mapping->handle;
	if (--handle->maps == 0 && handle->released)
		give_back_locked(handle);
	size_t size = mapping->size;
	free(mapping);
	return size;
}

static CUresult untraced_cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	uintptr_t start = (uintptr_t)ptr;
	pthread_mutex_lock(&sim_lock);
	if (!whole_mappings_locked(start, size)) {
		pthread_mutex_unlock(&sim_lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	for (uintptr_t cursor = start; cursor - start < size;)
		cursor += unmap_one_locked(cursor);
	pthread_mutex_unlock(&sim_lock);
	madvise((void *)start, size, MADV_DONTNEED);
	mprotect((void *)start, size, PROT_NONE);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	cuMemUnmap_params params = {ptr, size};
	return SIM_TRACED(cuMemUnmap, &params, untraced_cuMemUnmap(ptr, size));
}

SIM_EXPORT CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
				   size_t count)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!desc || count == 0 || size == 0 || !ptr)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

static bool valid_multicast_prop(const CUmulticastObjectProp *prop)
{
	return prop && prop->numDevices >= 1 &&
	       prop->numDevices <= (unsigned)sim_config()->device_count && prop->flags == 0;
}

SIM_EXPORT CUresult cuMulticastGetGranularity(size_t *granularity,
					      const CUmulticastObjectProp *prop,
					      CUmulticastGranularity_flags option)
{
	(void)option;
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!granularity || !valid_multicast_prop(prop))
		return CUDA_ERROR_INVALID_VALUE;
	*granularity = sim_config()->granularity;
	return CUDA_SUCCESS;
}

static CUresult untraced_cuMulticastCreate(CUmemGenericAllocationHandle *out,
					   const CUmulticastObjectProp *prop)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out || !valid_multicast_prop(prop) || prop->size == 0 ||
	    prop->size % sim_config()->granularity != 0)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_handle *handle = calloc(1, sizeof(*handle));
	if (!handle)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&sim_lock);
	*handle = (struct sim_handle){
		.id = next_handle, .size = prop->size, .device = device, .references = 1};
	next_handle += 0x10;
	HASH_ADD(hh, handles, id, sizeof(handle->id), handle);
	pthread_mutex_unlock(&sim_lock);
	*out = handle->id;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMulticastCreate(CUmemGenericAllocationHandle *out,
				      const CUmulticastObjectProp *prop)
{
	cuMulticastCreate_params params = {out, prop};
	return SIM_TRACED(cuMulticastCreate, &params, untraced_cuMulticastCreate(out, prop));
}

/* Whether id is a live handle, and, for a multicast object, [offset,
 * offset + size) lies inside it. */
static bool live_range(CUmemGenericAllocationHandle id, size_t offset, size_t size)
{
	pthread_mutex_lock(&sim_lock);
	struct sim_handle *handle = NULL;
	HASH_FIND(hh, handles, &id, sizeof(id), handle);
	bool inside = handle && !handle->released && offset <= handle->size &&
		      size <= handle->size - offset;
	pthread_mutex_unlock(&sim_lock);
	return inside;
}

SIM_EXPORT CUresult cuMulticastAddDevice(CUmemGenericAllocationHandle multicast, CUdevice device)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	return live_range(multicast, 0, 0) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuMulticastBindMem(CUmemGenericAllocationHandle multicast,
				       size_t multicast_offset, CUmemGenericAllocationHandle memory,
				       size_t memory_offset, size_t size, unsigned long long flags)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	bool valid = flags == 0 && size != 0 && live_range(multicast, multicast_offset, size) &&
		     live_range(memory, memory_offset, size);
	return valid ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuMulticastUnbind(CUmemGenericAllocationHandle multicast, CUdevice device,
				      size_t multicast_offset, size_t size)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	return live_range(multicast, multicast_offset, size) ? CUDA_SUCCESS
							     : CUDA_ERROR_INVALID_VALUE;
}

/* A handle handed to another process: a file descriptor (a sealed memfd)
 * that names the memory's device and size. The importer gets a handle of
 * its own to the same memory, which costs it nothing: the exporter holds
 * the memory. */
#define SHAREABLE_MAGIC 0x76736d68u /* "vsmh" */

struct shareable {
	uint32_t magic;
	int32_t device;
	uint64_t size;
};

static struct sim_handle *handle_locked(CUmemGenericAllocationHandle id)
{
	struct sim_handle *handle = NULL;
	HASH_FIND(hh, handles, &id, sizeof(id), handle);
	return handle && !handle->released ? handle : NULL;
}

SIM_EXPORT CUresult cuMemExportToShareableHandle(void *out, CUmemGenericAllocationHandle id,
						 CUmemAllocationHandleType type,
						 unsigned long long flags)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out || flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return CUDA_ERROR_NOT_SUPPORTED;
	pthread_mutex_lock(&sim_lock);
	struct sim_handle *handle = handle_locked(id);
	struct shareable named = {SHAREABLE_MAGIC, handle ? handle->device : 0,
				  handle ? handle->size : 0};
	bool allowed = handle && (handle->handle_types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	pthread_mutex_unlock(&sim_lock);
	if (!allowed)
		return CUDA_ERROR_INVALID_VALUE;
	int fd = memfd_create("vramsim-shareable", MFD_CLOEXEC);
	if (fd < 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (write(fd, &named, sizeof(named)) != (ssize_t)sizeof(named)) {
		close(fd);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*(int *)out = fd;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *out,
						   void *os_handle, CUmemAllocationHandleType type)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return CUDA_ERROR_NOT_SUPPORTED;
	struct shareable named;
	int fd = (int)(intptr_t)os_handle;
	if (pread(fd, &named, sizeof(named), 0) != (ssize_t)sizeof(named) ||
	    named.magic != SHAREABLE_MAGIC || !sim_valid_device(named.device))
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_handle *handle = calloc(1, sizeof(*handle));
	if (!handle)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&sim_lock);
	*handle = (struct sim_handle){.id = next_handle,
				      .size = named.size,
				      .device = named.device,
				      .handle_types = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
				      .references = 1};
	next_handle += 0x10;
	HASH_ADD(hh, handles, id, sizeof(handle->id), handle);
	pthread_mutex_unlock(&sim_lock);
	*out = handle->id;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
							   CUmemGenericAllocationHandle id)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!prop)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	struct sim_handle *handle = handle_locked(id);
	if (handle)
		*prop = (CUmemAllocationProp){
			.type = CU_MEM_ALLOCATION_TYPE_PINNED,
			.requestedHandleTypes = (CUmemAllocationHandleType)handle->handle_types,
			.location = {CU_MEM_LOCATION_TYPE_DEVICE, handle->device},
			.allocFlags = handle->flags};
	pthread_mutex_unlock(&sim_lock);
	return handle ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The handle mapped at address, with one more reference to release. */
SIM_EXPORT CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *out, void *address)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	uintptr_t at = (uintptr_t)address;
	struct sim_range *mapping, *tmp, *found = NULL;
	pthread_mutex_lock(&sim_lock);
	HASH_ITER (hh, mappings, mapping, tmp) {
		if (at >= mapping->start && at - mapping->start < mapping->size)
			found = mapping;
	}
	if (found) {
		/* A released handle still mapped comes back to life: this
		 * reference is released as any other (cuda.h). */
		found->handle->references++;
		found->handle->released = false;
		*out = found->handle->id;
	}
	pthread_mutex_unlock(&sim_lock);
	return found ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
