/* Stand-in driver: allocation, free, copies and sets. Large allocations are
 * private MAP_NORESERVE mappings, so a large device costs nothing until its
 * memory is touched; host code may read and write all of them directly. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <uthash.h>

#include "sim.h"

struct sim_allocation {
	uintptr_t address;
	size_t bytes;
	size_t mapped;
	uint64_t charged;
	int device;
	enum sim_memory memory;
	/* The context it was made in, which destroys it on ending; NULL for
	 * what belongs to no context (pools, registrations, foreign memory). */
	struct sim_context *context;
	struct sim_pool *pool;    /* for stream-ordered allocations */
	struct sim_advice advice; /* for managed memory */
	UT_hash_handle hh;
};

static struct sim_allocation *allocations;

static uint64_t round_up(uint64_t value, uint64_t multiple)
{
	return sim_round_up(value, multiple);
}

static struct sim_allocation *find_locked(uintptr_t address)
{
	struct sim_allocation *allocation = NULL;
	HASH_FIND(hh, allocations, &address, sizeof(address), allocation);
	return allocation;
}

/* The allocation holding [address, address + bytes), or NULL. Linear, but
 * only copies and sets use it. */
static struct sim_allocation *containing_locked(uintptr_t address, size_t bytes)
{
	struct sim_allocation *allocation, *tmp;
	HASH_ITER (hh, allocations, allocation, tmp) {
		if (address >= allocation->address &&
		    address - allocation->address <= allocation->bytes &&
		    bytes <= allocation->bytes - (address - allocation->address))
			return allocation;
	}
	return NULL;
}

static bool fits_locked(int device, uint64_t charge)
{
	struct sim_device *dev = &sim_devices[device];
	uint64_t used = sim_device_used(device);
	return used <= dev->capacity && charge <= dev->capacity - used;
}

/* Small allocations come from the C heap, so a tight allocate/free loop
 * measures the caller, not mmap; large ones are mapped lazily. */
#define SIM_SMALL_BYTES (64u << 10)
#define SIM_ALIGNMENT   256

static bool small_allocation(size_t bytes)
{
	return bytes <= SIM_SMALL_BYTES;
}

static void *backing(size_t bytes, size_t mapped)
{
	if (!mapped) {
		void *heap = aligned_alloc(SIM_ALIGNMENT, round_up(bytes, SIM_ALIGNMENT));
		return heap ? heap : MAP_FAILED;
	}
	return mmap(NULL, mapped, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}

static CUresult allocate_in(void **out, size_t bytes, int device, enum sim_memory memory,
			    struct sim_pool *pool);

static CUresult allocate(void **out, size_t bytes, int device, enum sim_memory memory)
{
	return allocate_in(out, bytes, device, memory, NULL);
}

/* cuMemAlloc, cuMemAllocPitch, cuMemAllocManaged, cuMemAllocHost and
 * cuMemHostAlloc memory, and IPC imports, are their context's (cuda.h,
 * cuCtxDestroy); stream-ordered memory is its pool's. */
static bool owned_by_context(enum sim_memory memory, const struct sim_pool *pool)
{
	return !pool && memory != SIM_MEMORY_REGISTERED && memory != SIM_MEMORY_FOREIGN;
}

static CUresult allocate_in(void **out, size_t bytes, int device, enum sim_memory memory,
			    struct sim_pool *pool)
{
	if (!out || bytes == 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (bytes > SIM_MAX_BYTES)
		return CUDA_ERROR_OUT_OF_MEMORY;
	/* Host memory is not the device's; an import is charged to the
	 * process that exported it. */
	bool charged = memory != SIM_MEMORY_HOST && memory != SIM_MEMORY_IMPORTED &&
		       memory != SIM_MEMORY_FOREIGN;
	uint64_t charge = charged ? round_up(bytes, sim_config()->granularity) : 0;
	pthread_mutex_lock(&sim_lock);
	uint64_t growth = pool ? sim_pool_growth(pool, charge) : charge;
	if (memory == SIM_MEMORY_DEVICE && !fits_locked(device, growth)) {
		pthread_mutex_unlock(&sim_lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	struct sim_allocation *allocation = malloc(sizeof(*allocation));
	size_t mapped =
		small_allocation(bytes) ? 0 : round_up(bytes, (uint64_t)sysconf(_SC_PAGESIZE));
	void *memory_at = allocation ? backing(bytes, mapped) : MAP_FAILED;
	if (memory_at == MAP_FAILED) {
		pthread_mutex_unlock(&sim_lock);
		free(allocation);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*allocation = (struct sim_allocation){
		.address = (uintptr_t)memory_at,
		.bytes = bytes,
		.mapped = mapped,
		.charged = charge,
		.device = device,
		.memory = memory,
		.context = owned_by_context(memory, pool) ? sim_current_context() : NULL,
		.pool = pool,
		.advice = {.preferred = CU_DEVICE_INVALID, .last_prefetch = CU_DEVICE_INVALID},
	};
	HASH_ADD(hh, allocations, address, sizeof(allocation->address), allocation);
	sim_devices[device].charged += growth;
	if (pool)
		sim_pool_take(pool, charge);
	pthread_mutex_unlock(&sim_lock);
	*out = memory_at;
	return CUDA_SUCCESS;
}

/* Which call may end an allocation: cuMemFree device and managed memory,
 * cuMemFreeHost host memory, cuIpcCloseMemHandle an import. Registrations
 * end only through cuMemHostUnregister. */
enum sim_release_by { SIM_BY_FREE, SIM_BY_FREE_HOST, SIM_BY_IPC_CLOSE };

static bool released_by(enum sim_memory memory, enum sim_release_by by)
{
	switch (memory) {
	case SIM_MEMORY_DEVICE:
	case SIM_MEMORY_MANAGED:
	case SIM_MEMORY_FOREIGN: return by == SIM_BY_FREE;
	case SIM_MEMORY_HOST: return by == SIM_BY_FREE_HOST;
	case SIM_MEMORY_IMPORTED: return by == SIM_BY_IPC_CLOSE;
	case SIM_MEMORY_REGISTERED: break;
	}
	return false;
}

/* Called with sim_lock held: out of the table, its charge given back. */
static void unlink_locked(struct sim_allocation *allocation)
{
	HASH_DEL(allocations, allocation);
	sim_devices[allocation->device].charged -=
		allocation->pool ? sim_pool_give_back(allocation->pool, allocation->charged)
				 : allocation->charged;
}

/* An unlinked allocation's memory and record, freed. */
static void discard(struct sim_allocation *allocation)
{
	if (allocation->mapped)
		munmap((void *)allocation->address, allocation->mapped);
	else if (allocation->memory != SIM_MEMORY_REGISTERED)
		free((void *)allocation->address);
	free(allocation);
}

/* freed_on: the device a free of pool memory was made from (its stream's,
 * or the current context's), whose next synchronize trims the pool; -1
 * for none known. */
static CUresult release(uintptr_t address, enum sim_release_by by, int freed_on)
{
	pthread_mutex_lock(&sim_lock);
	struct sim_allocation *allocation = find_locked(address);
	if (!allocation || !released_by(allocation->memory, by)) {
		pthread_mutex_unlock(&sim_lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (allocation->pool && freed_on >= 0)
		allocation->pool->freed_on |= 1u << freed_on;
	unlink_locked(allocation);
	pthread_mutex_unlock(&sim_lock);
	discard(allocation);
	return CUDA_SUCCESS;
}

/* Every allocation made in context ends with it, and so does every array. */
void sim_memory_context_ended(const struct sim_context *context)
{
	struct sim_allocation *allocation, *tmp;
	pthread_mutex_lock(&sim_lock);
	HASH_ITER (hh, allocations, allocation, tmp) {
		if (allocation->context == context) {
			unlink_locked(allocation);
			discard(allocation);
		}
	}
	pthread_mutex_unlock(&sim_lock);
	sim_arrays_context_ended(context);
}

static CUresult allocate_in_context(CUdeviceptr *dptr, size_t bytes, enum sim_memory memory)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!dptr)
		return CUDA_ERROR_INVALID_VALUE;
	void *at;
	rc = allocate(&at, bytes, device, memory);
	if (rc == CUDA_SUCCESS)
		*dptr = (CUdeviceptr)at;
	return rc;
}

static CUresult untraced_cuMemAlloc(CUdeviceptr *dptr, size_t bytes)
{
	return allocate_in_context(dptr, bytes, SIM_MEMORY_DEVICE);
}

SIM_EXPORT CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytes)
{
	cuMemAlloc_v2_params params = {dptr, bytes};
	return SIM_TRACED(cuMemAlloc_v2, &params, untraced_cuMemAlloc(dptr, bytes));
}

/* Rows are padded to the texture pitch alignment real devices report. */
#define SIM_PITCH_ALIGNMENT 512

static CUresult untraced_cuMemAllocPitch(CUdeviceptr *dptr, size_t *pitch, size_t width,
					 size_t height, unsigned int element_bytes)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!dptr || !pitch || width == 0 || height == 0 ||
	    (element_bytes != 4 && element_bytes != 8 && element_bytes != 16))
		return CUDA_ERROR_INVALID_VALUE;
	size_t row = round_up(width, SIM_PITCH_ALIGNMENT);
	if (height > SIZE_MAX / row)
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = allocate_in_context(dptr, row * height, SIM_MEMORY_DEVICE);
	if (rc == CUDA_SUCCESS)
		*pitch = row;
	return rc;
}

SIM_EXPORT CUresult cuMemAllocPitch(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
				    unsigned int element_bytes)
{
	cuMemAllocPitch_v2_params params = {dptr, pitch, width, height, element_bytes};
	return SIM_TRACED(cuMemAllocPitch_v2, &params,
			  untraced_cuMemAllocPitch(dptr, pitch, width, height, element_bytes));
}

/* A null pointer frees nothing and succeeds, as free(NULL) does: so the
 * driver answers cuMemFree(0) and cuMemFreeHost(NULL). stream is
 * cuMemFreeAsync's, NULL for cuMemFree: the current context's device. */
static CUresult free_device_memory(CUdeviceptr dptr, CUstream stream)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS || !dptr)
		return rc;
	int device;
	if (sim_stream_device(stream, &device) != CUDA_SUCCESS)
		device = -1;
	rc = release((uintptr_t)dptr, SIM_BY_FREE, device);
	return rc == CUDA_ERROR_INVALID_VALUE ? sim_graph_free((uintptr_t)dptr) : rc;
}

static CUresult untraced_cuMemFree(CUdeviceptr dptr)
{
	return free_device_memory(dptr, NULL);
}

SIM_EXPORT CUresult cuMemFree(CUdeviceptr dptr)
{
	cuMemFree_v2_params params = {dptr};
	return SIM_TRACED(cuMemFree_v2, &params, untraced_cuMemFree(dptr));
}

static CUresult untraced_cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned int flags)
{
	if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
		return CUDA_ERROR_INVALID_VALUE;
	return allocate_in_context(dptr, bytes, SIM_MEMORY_MANAGED);
}

SIM_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned int flags)
{
	cuMemAllocManaged_params params = {dptr, bytes, flags};
	return SIM_TRACED(cuMemAllocManaged, &params,
			  untraced_cuMemAllocManaged(dptr, bytes, flags));
}

static CUresult host_alloc(void **pp, size_t bytes)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	return allocate(pp, bytes, device, SIM_MEMORY_HOST);
}

static CUresult untraced_cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags)
{
	const unsigned int known = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
				   CU_MEMHOSTALLOC_WRITECOMBINED;
	if (flags & ~known)
		return CUDA_ERROR_INVALID_VALUE;
	return host_alloc(pp, bytes);
}

SIM_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags)
{
	cuMemHostAlloc_params params = {pp, bytes, flags};
	return SIM_TRACED(cuMemHostAlloc, &params, untraced_cuMemHostAlloc(pp, bytes, flags));
}

static CUresult untraced_cuMemAllocHost(void **pp, size_t bytes)
{
	return host_alloc(pp, bytes);
}

SIM_EXPORT CUresult cuMemAllocHost(void **pp, size_t bytes)
{
	cuMemAllocHost_v2_params params = {pp, bytes};
	return SIM_TRACED(cuMemAllocHost_v2, &params, untraced_cuMemAllocHost(pp, bytes));
}

static CUresult untraced_cuMemFreeHost(void *p)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS || !p)
		return rc;
	return release((uintptr_t)p, SIM_BY_FREE_HOST, -1);
}

SIM_EXPORT CUresult cuMemFreeHost(void *p)
{
	cuMemFreeHost_params params = {p};
	return SIM_TRACED(cuMemFreeHost, &params, untraced_cuMemFreeHost(p));
}

/* Stream-ordered allocation completes at once: the simulated device has no
 * queue, so "ordered" and "immediate" cannot be told apart. */
static CUresult allocate_from(CUdeviceptr *dptr, size_t bytes, struct sim_pool *pool)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!pool || !dptr || pool->imported)
		return CUDA_ERROR_INVALID_VALUE;
	void *at;
	rc = allocate_in(&at, bytes, pool->device, SIM_MEMORY_DEVICE, pool);
	if (rc == CUDA_SUCCESS)
		*dptr = (CUdeviceptr)at;
	return rc;
}

/* From the current pool of the stream's device, as the driver does, which
 * need not be the current device. */
static CUresult untraced_cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
	int device;
	CUresult rc = sim_stream_device(stream, &device);
	if (rc != CUDA_SUCCESS)
		return rc;
	CUgraph capture;
	rc = sim_stream_capture_graph(stream, &capture);
	if (rc != CUDA_SUCCESS || capture)
		return rc != CUDA_SUCCESS ? rc
					  : sim_graph_capture_alloc(capture, device, bytes, dptr);
	return allocate_from(dptr, bytes, sim_devices[device].current_pool);
}

SIM_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
	cuMemAllocAsync_params params = {dptr, bytes, stream};
	return SIM_TRACED(cuMemAllocAsync, &params, untraced_cuMemAllocAsync(dptr, bytes, stream));
}

static CUresult untraced_cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
	return untraced_cuMemAllocAsync(dptr, bytes, stream);
}

SIM_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
	cuMemAllocAsync_ptsz_params params = {dptr, bytes, stream};
	return SIM_TRACED(cuMemAllocAsync_ptsz, &params,
			  untraced_cuMemAllocAsync_ptsz(dptr, bytes, stream));
}

static CUresult untraced_cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
						 CUstream stream)
{
	struct sim_pool *from = sim_pool_of(pool);
	CUgraph capture;
	CUresult rc = sim_stream_capture_graph(stream, &capture);
	if (rc != CUDA_SUCCESS || (capture && from))
		return rc != CUDA_SUCCESS
			       ? rc
			       : sim_graph_capture_alloc(capture, from->device, bytes, dptr);
	return allocate_from(dptr, bytes, from);
}

SIM_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
					    CUstream stream)
{
	cuMemAllocFromPoolAsync_params params = {dptr, bytes, pool, stream};
	return SIM_TRACED(cuMemAllocFromPoolAsync, &params,
			  untraced_cuMemAllocFromPoolAsync(dptr, bytes, pool, stream));
}

static CUresult untraced_cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytes,
						      CUmemoryPool pool, CUstream stream)
{
	return untraced_cuMemAllocFromPoolAsync(dptr, bytes, pool, stream);
}

SIM_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
						 CUstream stream)
{
	cuMemAllocFromPoolAsync_ptsz_params params = {dptr, bytes, pool, stream};
	return SIM_TRACED(cuMemAllocFromPoolAsync_ptsz, &params,
			  untraced_cuMemAllocFromPoolAsync_ptsz(dptr, bytes, pool, stream));
}

static CUresult untraced_cuMemFreeAsync(CUdeviceptr dptr, CUstream stream)
{
	CUgraph capture;
	CUresult rc = sim_stream_capture_graph(stream, &capture);
	if (rc != CUDA_SUCCESS || capture)
		return rc != CUDA_SUCCESS ? rc : sim_graph_capture_free(capture, dptr);
	if (!dptr)
		return CUDA_ERROR_INVALID_VALUE; /* only the immediate frees take null */
	return free_device_memory(dptr, stream);
}

SIM_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream)
{
	cuMemFreeAsync_params params = {dptr, stream};
	return SIM_TRACED(cuMemFreeAsync, &params, untraced_cuMemFreeAsync(dptr, stream));
}

static CUresult untraced_cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream)
{
	return untraced_cuMemFreeAsync(dptr, stream);
}

SIM_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream)
{
	cuMemFreeAsync_ptsz_params params = {dptr, stream};
	return SIM_TRACED(cuMemFreeAsync_ptsz, &params, untraced_cuMemFreeAsync_ptsz(dptr, stream));
}

SIM_EXPORT CUresult cuMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!free_bytes || !total_bytes)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	uint64_t capacity = sim_devices[device].capacity;
	uint64_t used = sim_device_used(device);
	pthread_mutex_unlock(&sim_lock);
	*total_bytes = capacity;
	*free_bytes = used < capacity ? capacity - used : 0;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemGetAddressRange(CUdeviceptr *base, size_t *size, CUdeviceptr dptr)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	pthread_mutex_lock(&sim_lock);
	struct sim_allocation *allocation = containing_locked((uintptr_t)dptr, 0);
	if (allocation) {
		if (base)
			*base = (CUdeviceptr)allocation->address;
		if (size)
			*size = allocation->bytes;
	}
	pthread_mutex_unlock(&sim_lock);
	return allocation ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

CUresult sim_check_device_range(CUdeviceptr dptr, size_t bytes)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	uintptr_t address = (uintptr_t)dptr;
	pthread_mutex_lock(&sim_lock);
	bool inside = containing_locked(address, bytes) || sim_vmm_mapped_locked(address, bytes) ||
		      sim_graph_memory_locked(address, bytes);
	pthread_mutex_unlock(&sim_lock);
	return inside ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static unsigned int memory_type(enum sim_memory memory)
{
	switch (memory) {
	case SIM_MEMORY_DEVICE:
	case SIM_MEMORY_IMPORTED:
	case SIM_MEMORY_FOREIGN: return CU_MEMORYTYPE_DEVICE;
	case SIM_MEMORY_MANAGED: return CU_MEMORYTYPE_UNIFIED;
	case SIM_MEMORY_HOST:
	case SIM_MEMORY_REGISTERED: break;
	}
	return CU_MEMORYTYPE_HOST;
}

static CUresult pointer_attribute(void *data, CUpointer_attribute attribute,
				  const struct sim_allocation *allocation, uintptr_t pointer)
{
	switch (attribute) {
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		*(unsigned int *)data = memory_type(allocation->memory);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		*(void **)data = (void *)pointer; /* one address space for both */
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
		*(unsigned int *)data = allocation->memory == SIM_MEMORY_MANAGED;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		*(int *)data = allocation->device;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		*(CUdeviceptr *)data = (CUdeviceptr)allocation->address;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
		*(size_t *)data = allocation->bytes;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_CONTEXT:
		*(CUcontext *)data = (CUcontext)allocation->context;
		return CUDA_SUCCESS;
	default: return CUDA_ERROR_INVALID_VALUE;
	}
}

SIM_EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
					  CUdeviceptr pointer)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!data)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	struct sim_allocation *allocation = containing_locked((uintptr_t)pointer, 0);
	rc = allocation ? pointer_attribute(data, attribute, allocation, (uintptr_t)pointer)
			: CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&sim_lock);
	return rc;
}

/* Registration page-locks memory the program already has: no new memory,
 * no capacity charge, nothing to unmap when it ends. */
static CUresult untraced_cuMemHostRegister(void *p, size_t bytes, unsigned int flags)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	(void)flags;
	if (!p || bytes == 0)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_allocation *allocation = malloc(sizeof(*allocation));
	if (!allocation)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*allocation = (struct sim_allocation){
		.address = (uintptr_t)p,
		.bytes = bytes,
		.device = device,
		.memory = SIM_MEMORY_REGISTERED,
	};
	pthread_mutex_lock(&sim_lock);
	bool overlaps = containing_locked((uintptr_t)p, 0) ||
			containing_locked((uintptr_t)p + bytes - 1, 0);
	if (!overlaps)
		HASH_ADD(hh, allocations, address, sizeof(allocation->address), allocation);
	pthread_mutex_unlock(&sim_lock);
	if (overlaps) {
		free(allocation);
		return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
	}
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemHostRegister(void *p, size_t bytes, unsigned int flags)
{
	cuMemHostRegister_v2_params params = {p, bytes, flags};
	return SIM_TRACED(cuMemHostRegister_v2, &params,
			  untraced_cuMemHostRegister(p, bytes, flags));
}

static CUresult untraced_cuMemHostUnregister(void *p)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!p)
		return CUDA_ERROR_INVALID_VALUE; /* unlike the frees, null is refused */
	pthread_mutex_lock(&sim_lock);
	struct sim_allocation *allocation = find_locked((uintptr_t)p);
	bool registered = allocation && allocation->memory == SIM_MEMORY_REGISTERED;
	if (registered)
		HASH_DEL(allocations, allocation);
	pthread_mutex_unlock(&sim_lock);
	if (!registered)
		return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
	free(allocation);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemHostUnregister(void *p)
{
	cuMemHostUnregister_params params = {p};
	return SIM_TRACED(cuMemHostUnregister, &params, untraced_cuMemHostUnregister(p));
}

SIM_EXPORT CUresult cuMemHostGetDevicePointer(CUdeviceptr *dptr, void *p, unsigned int flags)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!dptr || flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	unsigned int type;
	rc = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)p);
	if (rc != CUDA_SUCCESS || type != CU_MEMORYTYPE_HOST)
		return CUDA_ERROR_INVALID_VALUE;
	*dptr = (CUdeviceptr)p;
	return CUDA_SUCCESS;
}

CUresult sim_import(void **out, size_t bytes, int device)
{
	return allocate(out, bytes, device, SIM_MEMORY_IMPORTED);
}

CUresult sim_map_foreign(void **out, size_t bytes, int device)
{
	return allocate(out, bytes, device, SIM_MEMORY_FOREIGN);
}

CUresult sim_close_import(uintptr_t address)
{
	return release(address, SIM_BY_IPC_CLOSE, -1);
}

bool sim_exportable(uintptr_t address, size_t *bytes, int *device)
{
	pthread_mutex_lock(&sim_lock);
	struct sim_allocation *allocation = find_locked(address);
	bool exportable = allocation && allocation->memory == SIM_MEMORY_DEVICE;
	if (exportable) {
		*bytes = allocation->bytes;
		*device = allocation->device;
	}
	pthread_mutex_unlock(&sim_lock);
	return exportable;
}

bool sim_pool_allocation(uintptr_t address, size_t *bytes, struct sim_pool **pool)
{
	pthread_mutex_lock(&sim_lock);
	struct sim_allocation *allocation = find_locked(address);
	bool pooled = allocation && allocation->pool;
	if (pooled) {
		*bytes = allocation->bytes;
		*pool = allocation->pool;
	}
	pthread_mutex_unlock(&sim_lock);
	return pooled;
}

struct sim_advice *sim_managed_advice_locked(CUdeviceptr dptr, size_t count)
{
	struct sim_allocation *allocation = containing_locked((uintptr_t)dptr, count);
	return allocation && allocation->memory == SIM_MEMORY_MANAGED ? &allocation->advice : NULL;
}
