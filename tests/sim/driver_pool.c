/* Stand-in driver: stream-ordered memory pools. A pool reserves device
 * memory as its allocations grow. A free hands the memory back to the pool,
 * which keeps it reserved (still charged to the device, as cuMemGetInfo
 * sees it) until the next stream, event or context synchronize, which
 * returns what is held above the release threshold to the device (cuda.h,
 * CU_MEMPOOL_ATTR_RELEASE_THRESHOLD): the pool keeps max(in use,
 * threshold). That synchronize is one on the pool's own device, or on a
 * device from whose streams its memory was freed. The header names no
 * particular stream, and a pool's reserve is its device's memory, so any
 * synchronize there trims it, whichever stream the free was on. A
 * simulated free completes at once (there is no queue), so
 * cuMemPoolTrimTo releases freed memory without waiting for a synchronize
 * (its note says such memory only "can count as outstanding"), and so
 * does the last free into a destroyed pool. Created pools are never
 * freed, so a stale handle is refused rather than followed. */
#include "sim.h"

static struct sim_pool *created_pools;

void sim_pool_init_device(int device)
{
	struct sim_device *dev = &sim_devices[device];
	dev->default_pool = (struct sim_pool){.device = device, .live = true};
	dev->current_pool = &dev->default_pool;
}

struct sim_pool *sim_pool_of(CUmemoryPool handle)
{
	struct sim_pool *wanted = (struct sim_pool *)handle, *found = NULL;
	pthread_mutex_lock(&sim_lock);
	for (int device = 0; device < sim_config()->device_count; device++)
		if (wanted == &sim_devices[device].default_pool)
			found = wanted;
	for (struct sim_pool *pool = created_pools; pool && !found; pool = pool->next)
		if (pool == wanted && pool->live)
			found = pool;
	pthread_mutex_unlock(&sim_lock);
	return found;
}

uint64_t sim_pool_growth(const struct sim_pool *pool, uint64_t charge)
{
	uint64_t free_in_reserve = pool->reserved - pool->used;
	return charge > free_in_reserve ? charge - free_in_reserve : 0;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void sim_pool_take(struct sim_pool *pool, uint64_t charge)
{
	pool->reserved += sim_pool_growth(pool, charge);
	pool->used += charge;
	pool->used_high = max_u64(pool->used_high, pool->used);
	pool->reserved_high = max_u64(pool->reserved_high, pool->reserved);
}

/* Shrinks the reserve toward keep, never below what is in use. */
static uint64_t release_to(struct sim_pool *pool, uint64_t keep)
{
	uint64_t target = max_u64(pool->used, keep);
	if (pool->reserved <= target)
		return 0;
	uint64_t released = pool->reserved - target;
	pool->reserved = target;
	return released;
}

uint64_t sim_pool_give_back(struct sim_pool *pool, uint64_t charge)
{
	pool->used -= charge;
	return pool->live ? 0 : release_to(pool, 0);
}

/* Called with sim_lock held. */
static void trim_on_synchronize(struct sim_pool *pool, int device)
{
	if (pool->device != device && !(pool->freed_on & (1u << device)))
		return;
	pool->freed_on = 0;
	sim_devices[pool->device].charged -= release_to(pool, pool->threshold);
}

void sim_pools_synchronized(int device)
{
	pthread_mutex_lock(&sim_lock);
	for (int each = 0; each < sim_config()->device_count; each++)
		trim_on_synchronize(&sim_devices[each].default_pool, device);
	for (struct sim_pool *pool = created_pools; pool; pool = pool->next)
		if (pool->live && !pool->imported)
			trim_on_synchronize(pool, device);
	pthread_mutex_unlock(&sim_lock);
}

struct sim_pool *sim_pool_add(int device, unsigned handle_types, bool imported)
{
	struct sim_pool *pool = calloc(1, sizeof(*pool));
	if (!pool)
		return NULL;
	pool->device = device;
	pool->live = true;
	pool->handle_types = handle_types;
	pool->imported = imported;
	pthread_mutex_lock(&sim_lock);
	pool->next = created_pools;
	created_pools = pool;
	pthread_mutex_unlock(&sim_lock);
	return pool;
}

static CUresult check_props(const CUmemPoolProps *props)
{
	if (!props || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
	    props->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	if (props->handleTypes & ~CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return CUDA_ERROR_NOT_SUPPORTED; /* only file descriptors are simulated */
	if (!sim_valid_device(props->location.id))
		return CUDA_ERROR_INVALID_DEVICE;
	return CUDA_SUCCESS;
}

static CUresult create_pool(CUmemoryPool *handle, const CUmemPoolProps *props)
{
	CUresult rc = sim_check_init();
	if (rc == CUDA_SUCCESS && !handle)
		rc = CUDA_ERROR_INVALID_VALUE;
	if (rc == CUDA_SUCCESS)
		rc = check_props(props);
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_pool *pool = sim_pool_add(props->location.id, props->handleTypes, false);
	if (!pool)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*handle = (CUmemoryPool)pool;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemPoolCreate(CUmemoryPool *handle, const CUmemPoolProps *props)
{
	cuMemPoolCreate_params params = {handle, props};
	return SIM_TRACED(cuMemPoolCreate, &params, create_pool(handle, props));
}

/* Allocations still out keep their memory until freed, as on the real
 * driver; the unused reserve goes back now. A default pool cannot go. */
static CUresult untraced_cuMemPoolDestroy(CUmemoryPool handle)
{
	struct sim_pool *pool = sim_pool_of(handle);
	if (!pool || pool == &sim_devices[pool->device].default_pool)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	struct sim_device *dev = &sim_devices[pool->device];
	pool->live = false;
	dev->charged -= release_to(pool, 0);
	if (dev->current_pool == pool)
		dev->current_pool = &dev->default_pool;
	pthread_mutex_unlock(&sim_lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool handle)
{
	cuMemPoolDestroy_params params = {handle};
	return SIM_TRACED(cuMemPoolDestroy, &params, untraced_cuMemPoolDestroy(handle));
}

static CUresult untraced_cuMemPoolTrimTo(CUmemoryPool handle, size_t keep)
{
	struct sim_pool *pool = sim_pool_of(handle);
	if (!pool)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	sim_devices[pool->device].charged -= release_to(pool, keep);
	pthread_mutex_unlock(&sim_lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool handle, size_t keep)
{
	cuMemPoolTrimTo_params params = {handle, keep};
	return SIM_TRACED(cuMemPoolTrimTo, &params, untraced_cuMemPoolTrimTo(handle, keep));
}

/* The counter an attribute names, or NULL for the reuse flags. */
static uint64_t *counter_of(struct sim_pool *pool, CUmemPool_attribute attribute)
{
	switch (attribute) {
	case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: return &pool->threshold;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: return &pool->reserved;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: return &pool->reserved_high;
	case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: return &pool->used;
	case CU_MEMPOOL_ATTR_USED_MEM_HIGH: return &pool->used_high;
	default: return NULL;
	}
}

static bool reuse_flag(CUmemPool_attribute attribute)
{
	return attribute >= CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES &&
	       attribute <= CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES;
}

SIM_EXPORT CUresult cuMemPoolGetAttribute(CUmemoryPool handle, CUmemPool_attribute attribute,
					  void *value)
{
	struct sim_pool *pool = sim_pool_of(handle);
	if (!pool || !value)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult rc = CUDA_SUCCESS;
	pthread_mutex_lock(&sim_lock);
	uint64_t *counter = counter_of(pool, attribute);
	if (counter)
		*(cuuint64_t *)value = *counter;
	else if (reuse_flag(attribute))
		*(int *)value =
			pool->reuse[attribute - CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES];
	else
		rc = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&sim_lock);
	return rc;
}

/* The threshold and reuse flags are set freely; the high-water marks only
 * reset, to zero; the current figures are read-only. */
SIM_EXPORT CUresult cuMemPoolSetAttribute(CUmemoryPool handle, CUmemPool_attribute attribute,
					  void *value)
{
	struct sim_pool *pool = sim_pool_of(handle);
	if (!pool || !value)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult rc = CUDA_SUCCESS;
	pthread_mutex_lock(&sim_lock);
	if (reuse_flag(attribute)) {
		pool->reuse[attribute - CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES] =
			*(int *)value != 0;
	} else if (attribute == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) {
		pool->threshold = *(cuuint64_t *)value;
	} else if ((attribute == CU_MEMPOOL_ATTR_USED_MEM_HIGH ||
		    attribute == CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH) &&
		   *(cuuint64_t *)value == 0) {
		*counter_of(pool, attribute) = 0;
	} else {
		rc = CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_unlock(&sim_lock);
	return rc;
}

SIM_EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *handle, CUdevice device)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!handle)
		return CUDA_ERROR_INVALID_VALUE;
	*handle = (CUmemoryPool)&sim_devices[device].default_pool;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetMemPool(CUmemoryPool *handle, CUdevice device)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!handle)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	*handle = (CUmemoryPool)sim_devices[device].current_pool;
	pthread_mutex_unlock(&sim_lock);
	return CUDA_SUCCESS;
}

/* A pool serves only the device it was made for. */
static CUresult untraced_cuDeviceSetMemPool(CUdevice device, CUmemoryPool handle)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_pool *pool = sim_pool_of(handle);
	if (!pool || pool->device != device || pool->imported)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	sim_devices[device].current_pool = pool;
	pthread_mutex_unlock(&sim_lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceSetMemPool(CUdevice device, CUmemoryPool handle)
{
	cuDeviceSetMemPool_params params = {device, handle};
	return SIM_TRACED(cuDeviceSetMemPool, &params, untraced_cuDeviceSetMemPool(device, handle));
}

static bool valid_access(const CUmemAccessDesc *desc)
{
	return desc->location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
	       sim_valid_device(desc->location.id) &&
	       (desc->flags == CU_MEM_ACCESS_FLAGS_PROT_NONE ||
		desc->flags == CU_MEM_ACCESS_FLAGS_PROT_READ ||
		desc->flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
}

/* Peer access to a pool's memory; its own device's cannot be taken away. */
SIM_EXPORT CUresult cuMemPoolSetAccess(CUmemoryPool handle, const CUmemAccessDesc *map,
				       size_t count)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_pool *pool = sim_pool_of(handle);
	if (!pool || (count && !map))
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < count; i++)
		if (!valid_access(&map[i]) || (map[i].location.id == pool->device &&
					       map[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE))
			return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	for (size_t i = 0; i < count; i++)
		pool->access[map[i].location.id] = map[i].flags;
	pthread_mutex_unlock(&sim_lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool handle,
				       CUmemLocation *location)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_pool *pool = sim_pool_of(handle);
	if (!pool || !flags || !location || location->type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    !sim_valid_device(location->id))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	*flags = location->id == pool->device ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE
					      : pool->access[location->id];
	pthread_mutex_unlock(&sim_lock);
	return CUDA_SUCCESS;
}
