/* Stand-in runtime: device properties, streams, events, error strings and
 * driver entry points. */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "abi.h"
#include "runtime.h"

static int attribute(CUdevice_attribute which, int device)
{
	int value = 0;
	rt_driver.cuDeviceGetAttribute(&value, which, device);
	return value;
}

RT_EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	if (!prop)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	CUdevice handle;
	CUresult rc = rt_driver.cuDeviceGet(&handle, device);
	if (rc != CUDA_SUCCESS)
		return rt_result(rc);
	memset(prop, 0, sizeof(*prop));
	rt_driver.cuDeviceGetName(prop->name, sizeof(prop->name), handle);
	rt_driver.cuDeviceTotalMem(&prop->totalGlobalMem, handle);
	rt_driver.cuDeviceGetUuid((CUuuid *)&prop->uuid, handle);
	/* Every figure the driver reports an attribute for; the rest stay 0. */
	prop->major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, handle);
	prop->minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, handle);
	prop->multiProcessorCount = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, handle);
	prop->warpSize = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE, handle);
	prop->maxThreadsPerBlock = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, handle);
	prop->maxThreadsDim[0] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, handle);
	prop->maxThreadsDim[1] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, handle);
	prop->maxThreadsDim[2] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, handle);
	prop->maxGridSize[0] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, handle);
	prop->maxGridSize[1] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, handle);
	prop->maxGridSize[2] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, handle);
	prop->sharedMemPerBlock =
		attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, handle);
	prop->sharedMemPerBlockOptin =
		attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, handle);
	prop->sharedMemPerMultiprocessor =
		attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, handle);
	prop->reservedSharedMemPerBlock =
		attribute(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, handle);
	prop->regsPerBlock = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, handle);
	prop->regsPerMultiprocessor =
		attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, handle);
	prop->memPitch = attribute(CU_DEVICE_ATTRIBUTE_MAX_PITCH, handle);
	prop->totalConstMem = attribute(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, handle);
	prop->textureAlignment = attribute(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, handle);
	prop->texturePitchAlignment =
		attribute(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, handle);
	prop->surfaceAlignment = attribute(CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT, handle);
	prop->maxTexture1D = attribute(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH, handle);
	prop->maxTexture2D[0] = attribute(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH, handle);
	prop->maxTexture2D[1] = attribute(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT, handle);
	prop->maxTexture3D[0] = attribute(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH, handle);
	prop->maxTexture3D[1] = attribute(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT, handle);
	prop->maxTexture3D[2] = attribute(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, handle);
	prop->integrated = attribute(CU_DEVICE_ATTRIBUTE_INTEGRATED, handle);
	prop->canMapHostMemory = attribute(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, handle);
	prop->concurrentKernels = attribute(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, handle);
	prop->ECCEnabled = attribute(CU_DEVICE_ATTRIBUTE_ECC_ENABLED, handle);
	prop->pciBusID = attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, handle);
	prop->pciDeviceID = attribute(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, handle);
	prop->pciDomainID = attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, handle);
	prop->tccDriver = attribute(CU_DEVICE_ATTRIBUTE_TCC_DRIVER, handle);
	prop->asyncEngineCount = attribute(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, handle);
	prop->unifiedAddressing = attribute(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, handle);
	prop->memoryBusWidth = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, handle);
	prop->l2CacheSize = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, handle);
	prop->persistingL2CacheMaxSize =
		attribute(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, handle);
	prop->maxThreadsPerMultiProcessor =
		attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, handle);
	prop->maxBlocksPerMultiProcessor =
		attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, handle);
	prop->streamPrioritiesSupported =
		attribute(CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED, handle);
	prop->globalL1CacheSupported =
		attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED, handle);
	prop->localL1CacheSupported =
		attribute(CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED, handle);
	prop->managedMemory = attribute(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, handle);
	prop->isMultiGpuBoard = attribute(CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD, handle);
	prop->multiGpuBoardGroupID =
		attribute(CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID, handle);
	prop->hostNativeAtomicSupported =
		attribute(CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED, handle);
	prop->pageableMemoryAccess = attribute(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, handle);
	prop->concurrentManagedAccess =
		attribute(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, handle);
	prop->computePreemptionSupported =
		attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED, handle);
	prop->canUseHostPointerForRegisteredMem =
		attribute(CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, handle);
	prop->cooperativeLaunch = attribute(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, handle);
	prop->pageableMemoryAccessUsesHostPageTables =
		attribute(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES, handle);
	prop->directManagedMemAccessFromHost =
		attribute(CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST, handle);
	prop->accessPolicyMaxWindowSize =
		attribute(CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, handle);
	prop->hostRegisterSupported =
		attribute(CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, handle);
	prop->sparseCudaArraySupported =
		attribute(CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED, handle);
	prop->hostRegisterReadOnlySupported =
		attribute(CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, handle);
	prop->timelineSemaphoreInteropSupported =
		attribute(CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED, handle);
	prop->memoryPoolsSupported = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, handle);
	prop->gpuDirectRDMASupported =
		attribute(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, handle);
	prop->gpuDirectRDMAFlushWritesOptions =
		attribute(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, handle);
	prop->gpuDirectRDMAWritesOrdering =
		attribute(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, handle);
	prop->memoryPoolSupportedHandleTypes =
		attribute(CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, handle);
	prop->deferredMappingCudaArraySupported =
		attribute(CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED, handle);
	prop->ipcEventSupported = attribute(CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, handle);
	prop->clusterLaunch = attribute(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, handle);
	prop->mpsEnabled = attribute(CU_DEVICE_ATTRIBUTE_MPS_ENABLED, handle);
	return cudaSuccess;
}

RT_EXPORT cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr which, int device)
{
	if (!value)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDeviceGetAttribute(value, (CUdevice_attribute)which, device));
}

RT_EXPORT cudaError_t cudaDeviceGetPCIBusId(char *bus_id, int len, int device)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDeviceGetPCIBusId(bus_id, len, device));
}

/* Every pair of simulated devices can reach each other. */
RT_EXPORT cudaError_t cudaDeviceCanAccessPeer(int *can_access, int device, int peer)
{
	if (!can_access)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error == cudaSuccess)
		error = rt_check_device(device);
	if (error == cudaSuccess)
		error = rt_check_device(peer);
	if (error == cudaSuccess)
		*can_access = device != peer;
	return error;
}

static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long peer_enabled[64]; /* bit p of [d]: d reaches p */

static cudaError_t set_peer_access(int peer, bool enable)
{
	cudaError_t error = rt_context();
	if (error == cudaSuccess)
		error = rt_check_device(peer);
	if (error != cudaSuccess)
		return error;
	int device = rt_current_device();
	if (peer == device)
		return rt_fail(cudaErrorInvalidDevice);
	pthread_mutex_lock(&peer_lock);
	bool was = peer_enabled[device] & (1ull << peer);
	if (was != enable)
		peer_enabled[device] ^= 1ull << peer;
	pthread_mutex_unlock(&peer_lock);
	if (was == enable)
		return rt_fail(enable ? cudaErrorPeerAccessAlreadyEnabled
				      : cudaErrorPeerAccessNotEnabled);
	return cudaSuccess;
}

RT_EXPORT cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags)
{
	if (flags != 0)
		return rt_fail(cudaErrorInvalidValue);
	return set_peer_access(peer, true);
}

RT_EXPORT cudaError_t cudaDeviceDisablePeerAccess(int peer)
{
	return set_peer_access(peer, false);
}

static size_t limits[cudaLimitPersistingL2CacheSize + 1] = {
	[cudaLimitStackSize] = 1024,
	[cudaLimitPrintfFifoSize] = 1 << 20,
	[cudaLimitMallocHeapSize] = 8 << 20,
	[cudaLimitDevRuntimeSyncDepth] = 2,
	[cudaLimitDevRuntimePendingLaunchCount] = 2048,
	[cudaLimitMaxL2FetchGranularity] = 32,
};

RT_EXPORT cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
	if ((unsigned)limit > cudaLimitPersistingL2CacheSize)
		return rt_fail(cudaErrorUnsupportedLimit);
	cudaError_t error = rt_context();
	if (error == cudaSuccess)
		limits[limit] = value;
	return error;
}

RT_EXPORT cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
	if (!value)
		return rt_fail(cudaErrorInvalidValue);
	if ((unsigned)limit > cudaLimitPersistingL2CacheSize)
		return rt_fail(cudaErrorUnsupportedLimit);
	cudaError_t error = rt_context();
	if (error == cudaSuccess)
		*value = limits[limit];
	return error;
}

RT_EXPORT cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config)
{
	(void)config;
	return rt_context();
}

static cudaError_t untraced_cudaProfilerStart(void)
{
	cudaError_t error = rt_context();
	return error == cudaSuccess ? rt_result(rt_driver.cuProfilerStart()) : error;
}

RT_EXPORT cudaError_t cudaProfilerStart(void)
{
	return RT_TRACED(cudaProfilerStart_v4000, NULL, untraced_cudaProfilerStart());
}

static cudaError_t untraced_cudaProfilerStop(void)
{
	cudaError_t error = rt_context();
	return error == cudaSuccess ? rt_result(rt_driver.cuProfilerStop()) : error;
}

RT_EXPORT cudaError_t cudaProfilerStop(void)
{
	return RT_TRACED(cudaProfilerStop_v4000, NULL, untraced_cudaProfilerStop());
}

/* Names and texts as NVIDIA's libcudart 13 gives them (abi.py). */
static const struct sim_error *find_error(cudaError_t code)
{
	for (unsigned i = 0; i < sim_runtime_error_count; i++)
		if (sim_runtime_errors[i].code == (int)code)
			return &sim_runtime_errors[i];
	return NULL;
}

RT_EXPORT const char *cudaGetErrorString(cudaError_t error)
{
	const struct sim_error *found = find_error(error);
	return found ? found->text : "unrecognized error code";
}

RT_EXPORT const char *cudaGetErrorName(cudaError_t error)
{
	const struct sim_error *found = find_error(error);
	return found ? found->name : "unrecognized error code";
}

static cuuint64_t driver_flags(unsigned long long flags)
{
	cuuint64_t out = 0;
	if (flags & cudaEnableLegacyStream)
		out |= CU_GET_PROC_ADDRESS_LEGACY_STREAM;
	if (flags & cudaEnablePerThreadDefaultStream)
		out |= CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
	return out;
}

/* Served by the cuGetProcAddress pointer the runtime holds, as in the real
 * runtime: a tracer that wrapped that pointer sees these requests too. */
static cudaError_t entry_point(const char *symbol, void **fn, unsigned int version,
			       unsigned long long flags,
			       enum cudaDriverEntryPointQueryResult *status)
{
	if (!symbol || !fn)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	CUdriverProcAddressQueryResult driver_status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	CUresult rc = rt_driver.cuGetProcAddress(symbol, fn, (int)version, driver_flags(flags),
						 &driver_status);
	if (status)
		*status = (enum cudaDriverEntryPointQueryResult)driver_status;
	if (rc == CUDA_ERROR_NOT_FOUND)
		return cudaSuccess; /* the status says why; the call itself worked */
	return rt_result(rc);
}

RT_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **fn,
						       unsigned int version,
						       unsigned long long flags,
						       enum cudaDriverEntryPointQueryResult *status)
{
	return entry_point(symbol, fn, version, flags, status);
}

RT_EXPORT cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
	const char *symbol, void **fn, unsigned int version, unsigned long long flags,
	enum cudaDriverEntryPointQueryResult *status)
{
	return entry_point(symbol, fn, version, flags, status);
}

RT_EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **fn,
					      unsigned long long flags,
					      enum cudaDriverEntryPointQueryResult *status)
{
	return entry_point(symbol, fn, CUDART_VERSION, flags, status);
}

RT_EXPORT cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **fn,
						   unsigned long long flags,
						   enum cudaDriverEntryPointQueryResult *status)
{
	return entry_point(symbol, fn, CUDART_VERSION, flags, status);
}
