#include "pools.h"

#include <cuda.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "call.h"
#include "driver_hooks.h"
#include "driver_query.h"

struct pool {
	void *handle; /* NULL once destroyed: never read again */
	struct vt_pool_view view;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct pool pools[VT_MAX_POOLS];
static size_t pool_count;
/* Devices whose current pool served a cuMemAllocAsync, one bit each. */
static _Atomic uint64_t current_pool_devices;

static void read_locked(struct pool *pool)
{
	struct vt_reserve_figures figures;
	if (pool->handle && vt_driver_pool_figures(pool->handle, &figures))
		vt_reserve_update(&pool->view.memory, &figures);
}

static struct pool *find_or_add_locked(void *handle, int device)
{
	for (size_t i = 0; i < pool_count; i++)
		if (pools[i].handle == handle)
			return &pools[i];
	if (pool_count == VT_MAX_POOLS)
		return NULL;
	struct pool *pool = &pools[pool_count++];
	*pool = (struct pool){.handle = handle, .view = {.device = device}};
	return pool;
}

void vt_pools_note(void *handle, int device)
{
	if (!handle || device < 0)
		return;
	pthread_mutex_lock(&lock);
	find_or_add_locked(handle, device);
	pthread_mutex_unlock(&lock);
}

/* A load first: after the first allocation the bit is set, and a plain
 * read keeps the cache line shared between threads. */
void vt_pools_note_current(int device)
{
	if (device < 0 || device >= 64)
		return;
	uint64_t bit = 1ull << device;
	if (!(atomic_load_explicit(&current_pool_devices, memory_order_relaxed) & bit))
		atomic_fetch_or_explicit(&current_pool_devices, bit, memory_order_relaxed);
}

/* The current pools of the devices that allocated from theirs join the
 * pools in play; then every live pool is read. */
static void refresh(void)
{
	uint64_t devices = atomic_load_explicit(&current_pool_devices, memory_order_relaxed);
	pthread_mutex_lock(&lock);
	for (int device = 0; device < 64; device++) {
		void *current = devices & (1ull << device) ? vt_driver_device_pool(device) : NULL;
		if (current)
			find_or_add_locked(current, device);
	}
	for (size_t i = 0; i < pool_count; i++)
		read_locked(&pools[i]);
	pthread_mutex_unlock(&lock);
}

static void destroyed(void *handle)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < pool_count; i++) {
		if (pools[i].handle != handle)
			continue;
		pools[i].handle = NULL;
		pools[i].view.destroyed = true;
	}
	pthread_mutex_unlock(&lock);
}

size_t vt_pools_read(struct vt_pool_view *out, size_t max)
{
	refresh();
	pthread_mutex_lock(&lock);
	size_t count = pool_count < max ? pool_count : max;
	for (size_t i = 0; i < count; i++)
		out[i] = pools[i].view;
	pthread_mutex_unlock(&lock);
	return count;
}

void vt_pools_reset(void)
{
	pthread_mutex_init(&lock, NULL);
	memset(pools, 0, sizeof(pools));
	pool_count = 0;
	atomic_store(&current_pool_devices, 0);
}

typedef CUresult (*mem_pool_trim_to_fn)(CUmemoryPool, size_t);

VT_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep)
{
	VT_REAL("cuMemPoolTrimTo", VT_LEGACY_STREAM, mem_pool_trim_to_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(pool, keep);
	int saved_errno = errno;
	if (outer && rc == CUDA_SUCCESS)
		refresh();
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*mem_pool_destroy_fn)(CUmemoryPool);

/* The pool's last figures are read while its handle is still good. */
VT_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
	VT_REAL("cuMemPoolDestroy", VT_LEGACY_STREAM, mem_pool_destroy_fn);
	bool outer = vt_driver_enter();
	int saved_errno = errno;
	if (outer)
		refresh();
	errno = saved_errno;
	CUresult rc = real(pool);
	saved_errno = errno;
	if (outer && rc == CUDA_SUCCESS)
		destroyed(pool);
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*device_set_mem_pool_fn)(CUdevice, CUmemoryPool);

/* The pool being replaced is read while it is still the current one. */
VT_EXPORT CUresult cuDeviceSetMemPool(CUdevice device, CUmemoryPool pool)
{
	VT_REAL("cuDeviceSetMemPool", VT_LEGACY_STREAM, device_set_mem_pool_fn);
	bool outer = vt_driver_enter();
	int saved_errno = errno;
	if (outer)
		refresh();
	errno = saved_errno;
	CUresult rc = real(device, pool);
	vt_driver_leave();
	return rc;
}

typedef CUresult (*pool_import_pointer_fn)(CUdeviceptr *, CUmemoryPool, CUmemPoolPtrExportData *);

/* Another process's pool allocation: shown as pool_import at the size the
 * driver gives, never counted as this process's; a free ends it. */
VT_EXPORT CUresult cuMemPoolImportPointer(CUdeviceptr *dptr, CUmemoryPool pool,
					  CUmemPoolPtrExportData *data)
{
	VT_REAL("cuMemPoolImportPointer", VT_LEGACY_STREAM, pool_import_pointer_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(dptr, pool, data);
	int saved_errno = errno;
	if (outer && rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_POOL_IMPORT, *dptr, vt_driver_allocation_size(*dptr),
			      "cuMemPoolImportPointer");
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}
