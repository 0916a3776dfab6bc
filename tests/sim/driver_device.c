/* Stand-in driver: initialisation, devices and contexts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
struct sim_device sim_devices[SIM_MAX_DEVICES];

static bool initialized;
/* Every context cuCtxCreate made: a destroyed handle must read as dead, not
 * as freed memory, so none is ever freed. */
static struct sim_context *created_contexts;
static __thread struct sim_context *current_context;

#define CONTEXT_STACK_DEPTH 16
static __thread struct sim_context *context_stack[CONTEXT_STACK_DEPTH];
static __thread unsigned context_stack_size;

/* The context behind a handle, or NULL for one that names no context this
 * driver made (a stray pointer is never followed). */
struct sim_context *sim_context_of(CUcontext handle)
{
	struct sim_context *wanted = (struct sim_context *)handle, *found = NULL;
	if (!wanted)
		return NULL;
	pthread_mutex_lock(&sim_lock);
	for (int device = 0; device < SIM_MAX_DEVICES && !found; device++)
		if (wanted == &sim_devices[device].primary)
			found = wanted;
	for (struct sim_context *context = created_contexts; context && !found;
	     context = context->next)
		if (context == wanted)
			found = wanted;
	pthread_mutex_unlock(&sim_lock);
	return found;
}

CUresult sim_check_init(void)
{
	return initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

bool sim_valid_device(int device)
{
	return device >= 0 && device < sim_config()->device_count;
}

struct sim_context *sim_current_context(void)
{
	struct sim_context *context = current_context;
	return context && context->live ? context : NULL;
}

CUresult sim_current_device(int *device)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_context *context = sim_current_context();
	if (!context)
		/* A primary context released for the last time stays current
		 * (cuda.h: the release never pops it), inactive. */
		return current_context ? CUDA_ERROR_CONTEXT_IS_DESTROYED
				       : CUDA_ERROR_INVALID_CONTEXT;
	*device = context->device;
	return CUDA_SUCCESS;
}

uint64_t sim_device_used(int device)
{
	struct sim_device *dev = &sim_devices[device];
	return dev->charged + (dev->contexts ? sim_config()->context_bytes : 0);
}

static CUresult untraced_cuInit(unsigned int flags)
{
	const struct sim_config *config = sim_config();
	if (!config->valid)
		return CUDA_ERROR_INVALID_VALUE;
	if (flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (config->device_count == 0)
		return CUDA_ERROR_NO_DEVICE;
	pthread_mutex_lock(&sim_lock);
	for (int i = 0; i < config->device_count; i++) {
		sim_devices[i].capacity = config->capacity[i];
		sim_devices[i].primary.device = i;
		sim_devices[i].primary.primary = true;
		sim_pool_init_device(i);
	}
	initialized = true;
	pthread_mutex_unlock(&sim_lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDriverGetVersion(int *version)
{
	if (!version)
		return CUDA_ERROR_INVALID_VALUE;
	*version = CUDA_VERSION;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetCount(int *count)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = sim_config()->device_count;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	if (!sim_valid_device(ordinal))
		return CUDA_ERROR_INVALID_DEVICE;
	*device = ordinal;
	return CUDA_SUCCESS;
}

CUresult sim_check_device(CUdevice device)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	return sim_valid_device(device) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

SIM_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice device)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!name || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(name, (size_t)len, "vramsim GPU %d", device);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceTotalMem(size_t *bytes, CUdevice device)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!bytes)
		return CUDA_ERROR_INVALID_VALUE;
	*bytes = sim_devices[device].capacity;
	return CUDA_SUCCESS;
}

unsigned sim_device_arch(int device)
{
	(void)device;
	return 90;
}

/* The texture and surface limits of compute capability 9.0, as an H100 or
 * H200 reports them; 0 for another attribute. */
static int texture_limit(CUdevice_attribute attribute)
{
	switch (attribute) {
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH: return 131072;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT: return 65536;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT: return 65000;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH: return 2097120;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH: return 268435456;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH: return 16384;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE: return 8192;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH: return 32768;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS: return 2048;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS: return 2046;
	default: return 0;
	}
}

/* What an H100 or H200 (SXM) reports; the profile gives the memory's
 * figures. Host mapping, IPC and the memory features are all supported. */
static int attribute_value(CUdevice_attribute attribute, int device)
{
	const struct sim_profile *profile = sim_config()->profile;
	if (texture_limit(attribute))
		return texture_limit(attribute);
	switch (attribute) {
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return 9;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return 0;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return SIM_MULTIPROCESSORS;
	case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return SIM_THREADS_PER_BLOCK;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 0x7fffffff;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return SIM_SHARED_PER_BLOCK;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
		return SIM_SHARED_PER_BLOCK_OPTIN;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
		return SIM_SHARED_PER_MULTIPROCESSOR;
	case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: return SIM_SHARED_RESERVED;
	case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: return 65536;
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: return 65536;
	case CU_DEVICE_ATTRIBUTE_MAX_PITCH: return 0x7fffffff;
	case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return 1980000;
	case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return profile->memory_clock_khz;
	case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return profile->memory_bus_bits;
	case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return profile->l2_bytes;
	case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: return profile->l2_bytes / 4 * 3;
	case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: return 134213632;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
		return SIM_THREADS_PER_MULTIPROCESSOR;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
		return SIM_BLOCKS_PER_MULTIPROCESSOR;
	case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: return 512;
	case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: return 32;
	case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: return 512;
	case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return 3;
	case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: return 2;
	case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: return device;
	case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return 0x10 + device;
	case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT: return 4;
	case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES:
	case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS: return 1;
	case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING: return 100;
	case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
	case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
	case CU_DEVICE_ATTRIBUTE_INTEGRATED:
	case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE:
	case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT:
	case CU_DEVICE_ATTRIBUTE_TCC_DRIVER:
	case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD:
	case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS:
	case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES:
	case CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST:
	case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_MPS_ENABLED: return 0;
	case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
	case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
	case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
	case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS:
	case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
	case CU_DEVICE_ATTRIBUTE_ECC_ENABLED:
	case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP:
	case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM:
	case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
	case CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES:
	case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH:
	case CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED: return 1;
	default: return 0;
	}
}

SIM_EXPORT CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice device)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!value || attribute <= 0 || attribute >= CU_DEVICE_ATTRIBUTE_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	*value = attribute_value(attribute, device);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetPCIBusId(char *bus_id, int len, CUdevice device)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!bus_id || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(bus_id, (size_t)len, "0000:%02x:00.0", 0x10 + device);
	return CUDA_SUCCESS;
}

/* The inverse of cuDeviceGetPCIBusId: "0000:10:00.0" is device 0. */
SIM_EXPORT CUresult cuDeviceGetByPCIBusId(CUdevice *device, const char *bus_id)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	unsigned domain, bus, slot, function;
	char rest;
	if (!device || !bus_id ||
	    sscanf(bus_id, "%x:%x:%x.%x%c", &domain, &bus, &slot, &function, &rest) != 4 ||
	    domain || slot || function || !sim_valid_device((int)bus - 0x10))
		return CUDA_ERROR_INVALID_VALUE;
	*device = (int)bus - 0x10;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice device)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!uuid)
		return CUDA_ERROR_INVALID_VALUE;
	memset(uuid->bytes, 0, sizeof(uuid->bytes));
	memcpy(uuid->bytes, "vramsim", 7);
	uuid->bytes[15] = (char)device;
	return CUDA_SUCCESS;
}

/* Called with sim_lock held: a device's first live context costs
 * context_bytes, which only the device-level views (cuMemGetInfo, NVML)
 * see. */
static void context_start(struct sim_context *context)
{
	context->live = true;
	sim_devices[context->device].contexts++;
}

static void context_stop(struct sim_context *context)
{
	context->live = false;
	sim_devices[context->device].contexts--;
}

static CUresult untraced_cuDevicePrimaryCtxRetain(CUcontext *out, CUdevice device)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	struct sim_context *context = &sim_devices[device].primary;
	bool created = context->refcount++ == 0;
	if (created)
		context_start(context);
	pthread_mutex_unlock(&sim_lock);
	if (created)
		sim_resource_event(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, (CUcontext)context, NULL);
	*out = (CUcontext)context;
	return CUDA_SUCCESS;
}

/* The last release destroys the primary context, and with it every
 * allocation made in it. */
static CUresult untraced_cuDevicePrimaryCtxRelease(CUdevice device)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_context *context = &sim_devices[device].primary;
	pthread_mutex_lock(&sim_lock);
	unsigned refcount = context->refcount;
	pthread_mutex_unlock(&sim_lock);
	if (refcount == 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	/* The subscriber hears of the end while the context still works. */
	if (refcount == 1)
		sim_resource_event(CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, (CUcontext)context,
				   NULL);
	pthread_mutex_lock(&sim_lock);
	bool ended = context->refcount && --context->refcount == 0;
	if (ended)
		context_stop(context);
	pthread_mutex_unlock(&sim_lock);
	if (ended)
		sim_memory_context_ended(context);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice device)
{
	cuDevicePrimaryCtxRelease_v2_params params = {device};
	return SIM_TRACED(cuDevicePrimaryCtxRelease_v2, &params,
			  untraced_cuDevicePrimaryCtxRelease(device));
}

/* Destroys every allocation made in the primary context; the context
 * stays retained and works on (cuda.h: resetting it does not release it). */
static CUresult untraced_cuDevicePrimaryCtxReset(CUdevice device)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_context *context = &sim_devices[device].primary;
	pthread_mutex_lock(&sim_lock);
	bool live = context->live;
	pthread_mutex_unlock(&sim_lock);
	if (live)
		sim_memory_context_ended(context);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice device)
{
	cuDevicePrimaryCtxReset_v2_params params = {device};
	return SIM_TRACED(cuDevicePrimaryCtxReset_v2, &params,
			  untraced_cuDevicePrimaryCtxReset(device));
}

SIM_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned int *flags, int *active)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!flags || !active)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	*flags = sim_devices[device].primary_flags;
	*active = sim_devices[device].primary.live;
	pthread_mutex_unlock(&sim_lock);
	return CUDA_SUCCESS;
}

static CUresult untraced_cuCtxCreate(CUcontext *out, CUctxCreateParams *params, unsigned int flags,
				     CUdevice device)
{
	(void)params;
	(void)flags;
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_context *context = calloc(1, sizeof(*context));
	if (!context)
		return CUDA_ERROR_OUT_OF_MEMORY;
	context->device = device;
	pthread_mutex_lock(&sim_lock);
	context->next = created_contexts;
	created_contexts = context;
	context_start(context);
	pthread_mutex_unlock(&sim_lock);
	sim_resource_event(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, (CUcontext)context, NULL);
	/* Pushed onto the thread's stack: popping it brings back the one before. */
	if (current_context && context_stack_size < CONTEXT_STACK_DEPTH)
		context_stack[context_stack_size++] = current_context;
	current_context = context;
	*out = (CUcontext)context;
	return CUDA_SUCCESS;
}

static CUresult untraced_cuCtxDestroy(CUcontext handle)
{
	struct sim_context *context = sim_context_of(handle);
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!context || context->primary || !context->live)
		return CUDA_ERROR_INVALID_CONTEXT;
	sim_resource_event(CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, handle, NULL);
	pthread_mutex_lock(&sim_lock);
	context_stop(context);
	pthread_mutex_unlock(&sim_lock);
	sim_memory_context_ended(context);
	/* Current, it is popped from the thread's stack. */
	if (current_context == context)
		current_context = context_stack_size ? context_stack[--context_stack_size] : NULL;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxDestroy(CUcontext handle)
{
	cuCtxDestroy_v2_params params = {handle};
	return SIM_TRACED(cuCtxDestroy_v2, &params, untraced_cuCtxDestroy(handle));
}

SIM_EXPORT CUresult cuCtxSetCurrent(CUcontext handle)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	/* It replaces the top of the thread's stack; NULL pops it. */
	if (!handle) {
		current_context = context_stack_size ? context_stack[--context_stack_size] : NULL;
		return CUDA_SUCCESS;
	}
	struct sim_context *context = sim_context_of(handle);
	if (!context || !context->live)
		return CUDA_ERROR_INVALID_CONTEXT;
	current_context = context;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetCurrent(CUcontext *out)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	*out = (CUcontext)current_context; /* live or not: nothing but a pop removes it */
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxPushCurrent(CUcontext handle)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_context *context = sim_context_of(handle);
	if (!context || !context->live)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (context_stack_size == CONTEXT_STACK_DEPTH)
		return CUDA_ERROR_OUT_OF_MEMORY;
	context_stack[context_stack_size++] = current_context;
	current_context = context;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxPopCurrent(CUcontext *out)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!current_context)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (out)
		*out = (CUcontext)current_context;
	current_context = context_stack_size ? context_stack[--context_stack_size] : NULL;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetDevice(CUdevice *device)
{
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	int ordinal;
	CUresult rc = sim_current_device(&ordinal);
	if (rc == CUDA_SUCCESS)
		*device = ordinal;
	return rc;
}

SIM_EXPORT CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext handle)
{
	if (!handle)
		return cuCtxGetDevice(device);
	struct sim_context *context = sim_context_of(handle);
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	if (!context || !context->live)
		return CUDA_ERROR_INVALID_CONTEXT;
	*device = context->device;
	return CUDA_SUCCESS;
}

/* A context synchronize trims its device's memory pools (driver_pool.c). */
SIM_EXPORT CUresult cuCtxSynchronize(void)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc == CUDA_SUCCESS)
		sim_pools_synchronized(device);
	return rc;
}

SIM_EXPORT CUresult cuCtxSynchronize_v2(CUcontext handle)
{
	if (!handle)
		return cuCtxSynchronize();
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_context *context = sim_context_of(handle);
	if (!context || !context->live)
		return CUDA_ERROR_INVALID_CONTEXT;
	sim_pools_synchronized(context->device);
	return CUDA_SUCCESS;
}

/* Not a CUDA function: the simulated NVML reads the device-level view of
 * this process through it, VRAMSIM_HIDDEN_BYTES included (memory some
 * library took without any allocation call, while a context lives). */
SIM_EXPORT int vramsim_device_memory(int device, uint64_t *used, uint64_t *total)
{
	if (!sim_valid_device(device))
		return -1;
	pthread_mutex_lock(&sim_lock);
	*total = sim_config()->capacity[device];
	*used = sim_device_used(device) +
		(sim_devices[device].contexts ? sim_config()->hidden_bytes : 0);
	pthread_mutex_unlock(&sim_lock);
	return 0;
}

/* Initialization and contexts, as CUPTI's driver domain reports them. */
SIM_EXPORT CUresult cuInit(unsigned int flags)
{
	cuInit_params params = {flags};
	return SIM_TRACED(cuInit, &params, untraced_cuInit(flags));
}

SIM_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *out, CUdevice device)
{
	cuDevicePrimaryCtxRetain_params params = {out, device};
	return SIM_TRACED(cuDevicePrimaryCtxRetain, &params,
			  untraced_cuDevicePrimaryCtxRetain(out, device));
}

SIM_EXPORT CUresult cuCtxCreate(CUcontext *out, CUctxCreateParams *create_params,
				unsigned int flags, CUdevice device)
{
	cuCtxCreate_v4_params params = {out, create_params, flags, device};
	return SIM_TRACED(cuCtxCreate_v4, &params,
			  untraced_cuCtxCreate(out, create_params, flags, device));
}
