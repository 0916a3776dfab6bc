#include "pools.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "driver_query.h"
#include "call.h"
#include "observer.h"

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

int vt_pools_device(void *handle)
{
	int device = VT_UNKNOWN_DEVICE;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < pool_count && device == VT_UNKNOWN_DEVICE; i++)
		if (pools[i].handle == handle)
			device = pools[i].view.device;
	pthread_mutex_unlock(&lock);
	return device;
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

size_t vt_pools_read(struct vt_pool_view *out, size_t max, bool ask_driver)
{
	if (ask_driver)
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

/* A created pool is in play from its creation, on its own device. */
static void after_pool_create(const struct vt_observer *self, const void *args, CUresult rc)
{
	(void)self;
	const cuMemPoolCreate_params *p = args;
	if (rc == CUDA_SUCCESS && p->poolProps->location.type == CU_MEM_LOCATION_TYPE_DEVICE)
		vt_pools_note(*p->pool, p->poolProps->location.id);
}
VT_OBSERVER(cuMemPoolCreate, NULL, after_pool_create);

static void after_pool_trim(const struct vt_observer *self, const void *args, CUresult rc)
{
	(void)self, (void)args;
	if (rc == CUDA_SUCCESS)
		refresh();
}
VT_OBSERVER(cuMemPoolTrimTo, NULL, after_pool_trim);

/* The pool's last figures are read while its handle is still good; so is
 * the pool that cuDeviceSetMemPool is about to replace. */
static void before_pool_change(const struct vt_observer *self, const void *args)
{
	(void)self, (void)args;
	refresh();
}

static void after_pool_destroy(const struct vt_observer *self, const void *args, CUresult rc)
{
	(void)self;
	const cuMemPoolDestroy_params *p = args;
	if (rc == CUDA_SUCCESS)
		destroyed(p->pool);
}
VT_OBSERVER(cuMemPoolDestroy, before_pool_change, after_pool_destroy);

VT_OBSERVER(cuDeviceSetMemPool, before_pool_change, NULL);

/* Another process's pool allocation: shown as pool_import at the size the
 * driver gives, never counted as this process's; a free ends it. */
static void after_pool_import(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemPoolImportPointer_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_POOL_IMPORT, *p->ptr_out,
			      vt_driver_allocation_size(*p->ptr_out), self->name);
}
VT_OBSERVER(cuMemPoolImportPointer, NULL, after_pool_import);
