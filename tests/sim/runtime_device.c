/* Stand-in runtime: device properties, streams, events, error strings and
 * driver entry points. */
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "abi.h"

#include "runtime.h"

static int attribute(CUdevice_attribute which, int device)
{
	int value = 0;
	rt_driver.cuDeviceGetAttribute(&value, which, device);
	return value;
}

/* Every cudaDeviceProp figure the driver reports an attribute for; the
 * rest stay 0. */
struct property {
	size_t offset, size; /* of the field: int, unsigned or size_t */
	CUdevice_attribute attribute;
};

#define PROPERTY(member, attribute_name)                              \
	{                                                             \
		offsetof(struct cudaDeviceProp, member),              \
			sizeof(((struct cudaDeviceProp *)0)->member), \
			CU_DEVICE_ATTRIBUTE_##attribute_name          \
	}

static const struct property properties[] = {
	PROPERTY(major, COMPUTE_CAPABILITY_MAJOR),
	PROPERTY(minor, COMPUTE_CAPABILITY_MINOR),
	PROPERTY(multiProcessorCount, MULTIPROCESSOR_COUNT),
	PROPERTY(warpSize, WARP_SIZE),
	PROPERTY(maxThreadsPerBlock, MAX_THREADS_PER_BLOCK),
	PROPERTY(maxThreadsDim[0], MAX_BLOCK_DIM_X),
	PROPERTY(maxThreadsDim[1], MAX_BLOCK_DIM_Y),
	PROPERTY(maxThreadsDim[2], MAX_BLOCK_DIM_Z),
	PROPERTY(maxGridSize[0], MAX_GRID_DIM_X),
	PROPERTY(maxGridSize[1], MAX_GRID_DIM_Y),
	PROPERTY(maxGridSize[2], MAX_GRID_DIM_Z),
	PROPERTY(sharedMemPerBlock, MAX_SHARED_MEMORY_PER_BLOCK),
	PROPERTY(sharedMemPerBlockOptin, MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
	PROPERTY(sharedMemPerMultiprocessor, MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
	PROPERTY(reservedSharedMemPerBlock, RESERVED_SHARED_MEMORY_PER_BLOCK),
	PROPERTY(regsPerBlock, MAX_REGISTERS_PER_BLOCK),
	PROPERTY(regsPerMultiprocessor, MAX_REGISTERS_PER_MULTIPROCESSOR),
	PROPERTY(memPitch, MAX_PITCH),
	PROPERTY(totalConstMem, TOTAL_CONSTANT_MEMORY),
	PROPERTY(textureAlignment, TEXTURE_ALIGNMENT),
	PROPERTY(texturePitchAlignment, TEXTURE_PITCH_ALIGNMENT),
	PROPERTY(surfaceAlignment, SURFACE_ALIGNMENT),
	PROPERTY(maxTexture1D, MAXIMUM_TEXTURE1D_WIDTH),
	PROPERTY(maxTexture2D[0], MAXIMUM_TEXTURE2D_WIDTH),
	PROPERTY(maxTexture2D[1], MAXIMUM_TEXTURE2D_HEIGHT),
	PROPERTY(maxTexture3D[0], MAXIMUM_TEXTURE3D_WIDTH),
	PROPERTY(maxTexture3D[1], MAXIMUM_TEXTURE3D_HEIGHT),
	PROPERTY(maxTexture3D[2], MAXIMUM_TEXTURE3D_DEPTH),
	PROPERTY(maxTexture1DMipmap, MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH),
	PROPERTY(maxTexture2DMipmap[0], MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH),
	PROPERTY(maxTexture2DMipmap[1], MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT),
	PROPERTY(maxTexture2DLinear[0], MAXIMUM_TEXTURE2D_LINEAR_WIDTH),
	PROPERTY(maxTexture2DLinear[1], MAXIMUM_TEXTURE2D_LINEAR_HEIGHT),
	PROPERTY(maxTexture2DLinear[2], MAXIMUM_TEXTURE2D_LINEAR_PITCH),
	PROPERTY(maxTexture2DGather[0], MAXIMUM_TEXTURE2D_GATHER_WIDTH),
	PROPERTY(maxTexture2DGather[1], MAXIMUM_TEXTURE2D_GATHER_HEIGHT),
	PROPERTY(maxTexture3DAlt[0], MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE),
	PROPERTY(maxTexture3DAlt[1], MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE),
	PROPERTY(maxTexture3DAlt[2], MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE),
	PROPERTY(maxTextureCubemap, MAXIMUM_TEXTURECUBEMAP_WIDTH),
	PROPERTY(maxTexture1DLayered[0], MAXIMUM_TEXTURE1D_LAYERED_WIDTH),
	PROPERTY(maxTexture1DLayered[1], MAXIMUM_TEXTURE1D_LAYERED_LAYERS),
	PROPERTY(maxTexture2DLayered[0], MAXIMUM_TEXTURE2D_LAYERED_WIDTH),
	PROPERTY(maxTexture2DLayered[1], MAXIMUM_TEXTURE2D_LAYERED_HEIGHT),
	PROPERTY(maxTexture2DLayered[2], MAXIMUM_TEXTURE2D_LAYERED_LAYERS),
	PROPERTY(maxTextureCubemapLayered[0], MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH),
	PROPERTY(maxTextureCubemapLayered[1], MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS),
	PROPERTY(maxSurface1D, MAXIMUM_SURFACE1D_WIDTH),
	PROPERTY(maxSurface2D[0], MAXIMUM_SURFACE2D_WIDTH),
	PROPERTY(maxSurface2D[1], MAXIMUM_SURFACE2D_HEIGHT),
	PROPERTY(maxSurface3D[0], MAXIMUM_SURFACE3D_WIDTH),
	PROPERTY(maxSurface3D[1], MAXIMUM_SURFACE3D_HEIGHT),
	PROPERTY(maxSurface3D[2], MAXIMUM_SURFACE3D_DEPTH),
	PROPERTY(maxSurface1DLayered[0], MAXIMUM_SURFACE1D_LAYERED_WIDTH),
	PROPERTY(maxSurface1DLayered[1], MAXIMUM_SURFACE1D_LAYERED_LAYERS),
	PROPERTY(maxSurface2DLayered[0], MAXIMUM_SURFACE2D_LAYERED_WIDTH),
	PROPERTY(maxSurface2DLayered[1], MAXIMUM_SURFACE2D_LAYERED_HEIGHT),
	PROPERTY(maxSurface2DLayered[2], MAXIMUM_SURFACE2D_LAYERED_LAYERS),
	PROPERTY(maxSurfaceCubemap, MAXIMUM_SURFACECUBEMAP_WIDTH),
	PROPERTY(maxSurfaceCubemapLayered[0], MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH),
	PROPERTY(maxSurfaceCubemapLayered[1], MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS),
	PROPERTY(integrated, INTEGRATED),
	PROPERTY(canMapHostMemory, CAN_MAP_HOST_MEMORY),
	PROPERTY(concurrentKernels, CONCURRENT_KERNELS),
	PROPERTY(ECCEnabled, ECC_ENABLED),
	PROPERTY(pciBusID, PCI_BUS_ID),
	PROPERTY(pciDeviceID, PCI_DEVICE_ID),
	PROPERTY(pciDomainID, PCI_DOMAIN_ID),
	PROPERTY(tccDriver, TCC_DRIVER),
	PROPERTY(asyncEngineCount, ASYNC_ENGINE_COUNT),
	PROPERTY(unifiedAddressing, UNIFIED_ADDRESSING),
	PROPERTY(memoryBusWidth, GLOBAL_MEMORY_BUS_WIDTH),
	PROPERTY(l2CacheSize, L2_CACHE_SIZE),
	PROPERTY(persistingL2CacheMaxSize, MAX_PERSISTING_L2_CACHE_SIZE),
	PROPERTY(maxThreadsPerMultiProcessor, MAX_THREADS_PER_MULTIPROCESSOR),
	PROPERTY(maxBlocksPerMultiProcessor, MAX_BLOCKS_PER_MULTIPROCESSOR),
	PROPERTY(streamPrioritiesSupported, STREAM_PRIORITIES_SUPPORTED),
	PROPERTY(globalL1CacheSupported, GLOBAL_L1_CACHE_SUPPORTED),
	PROPERTY(localL1CacheSupported, LOCAL_L1_CACHE_SUPPORTED),
	PROPERTY(managedMemory, MANAGED_MEMORY),
	PROPERTY(isMultiGpuBoard, MULTI_GPU_BOARD),
	PROPERTY(multiGpuBoardGroupID, MULTI_GPU_BOARD_GROUP_ID),
	PROPERTY(hostNativeAtomicSupported, HOST_NATIVE_ATOMIC_SUPPORTED),
	PROPERTY(pageableMemoryAccess, PAGEABLE_MEMORY_ACCESS),
	PROPERTY(concurrentManagedAccess, CONCURRENT_MANAGED_ACCESS),
	PROPERTY(computePreemptionSupported, COMPUTE_PREEMPTION_SUPPORTED),
	PROPERTY(canUseHostPointerForRegisteredMem, CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM),
	PROPERTY(cooperativeLaunch, COOPERATIVE_LAUNCH),
	PROPERTY(pageableMemoryAccessUsesHostPageTables,
		 PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES),
	PROPERTY(directManagedMemAccessFromHost, DIRECT_MANAGED_MEM_ACCESS_FROM_HOST),
	PROPERTY(accessPolicyMaxWindowSize, MAX_ACCESS_POLICY_WINDOW_SIZE),
	PROPERTY(hostRegisterSupported, HOST_REGISTER_SUPPORTED),
	PROPERTY(sparseCudaArraySupported, SPARSE_CUDA_ARRAY_SUPPORTED),
	PROPERTY(hostRegisterReadOnlySupported, READ_ONLY_HOST_REGISTER_SUPPORTED),
	PROPERTY(timelineSemaphoreInteropSupported, TIMELINE_SEMAPHORE_INTEROP_SUPPORTED),
	PROPERTY(memoryPoolsSupported, MEMORY_POOLS_SUPPORTED),
	PROPERTY(gpuDirectRDMASupported, GPU_DIRECT_RDMA_SUPPORTED),
	PROPERTY(gpuDirectRDMAFlushWritesOptions, GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS),
	PROPERTY(gpuDirectRDMAWritesOrdering, GPU_DIRECT_RDMA_WRITES_ORDERING),
	PROPERTY(memoryPoolSupportedHandleTypes, MEMPOOL_SUPPORTED_HANDLE_TYPES),
	PROPERTY(deferredMappingCudaArraySupported, DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED),
	PROPERTY(ipcEventSupported, IPC_EVENT_SUPPORTED),
	PROPERTY(clusterLaunch, CLUSTER_LAUNCH),
	PROPERTY(mpsEnabled, MPS_ENABLED),
};

static void set_property(struct cudaDeviceProp *prop, const struct property *property, int value)
{
	char *field = (char *)prop + property->offset;
	if (property->size == sizeof(size_t)) {
		size_t wide = (size_t)value;
		memcpy(field, &wide, sizeof(wide));
	} else {
		memcpy(field, &value, sizeof(value));
	}
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
	for (size_t i = 0; i < sizeof(properties) / sizeof(properties[0]); i++)
		set_property(prop, &properties[i], attribute(properties[i].attribute, handle));
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

RT_EXPORT cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *bus_id)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDeviceGetByPCIBusId(device, bus_id));
}

/* Every device here is the same GPU: the first fits any wish. */
RT_EXPORT cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *wanted)
{
	if (!device || !wanted)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_check_device(0);
	if (error == cudaSuccess)
		*device = 0;
	return error;
}

/* Every pair of simulated devices can reach each other. */
RT_EXPORT cudaError_t cudaDeviceCanAccessPeer(int *can_access, int device, int peer)
{
	if (!can_access)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDeviceCanAccessPeer(can_access, device, peer));
}

/* The runtime's attributes are the driver's, number for number. */
RT_EXPORT cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attribute,
						int device, int peer)
{
	if (!value)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDeviceGetP2PAttribute(value, (CUdevice_P2PAttribute)attribute,
							   device, peer));
}

/* Peer access goes between the current device's primary context and the
 * peer's, which the runtime starts for it. */
static cudaError_t set_peer_access(int peer, bool enable)
{
	cudaError_t error = rt_context();
	if (error == cudaSuccess)
		error = rt_check_device(peer);
	if (error != cudaSuccess)
		return error;
	if (peer == rt_current_device())
		return rt_fail(cudaErrorInvalidDevice);
	CUcontext peer_context;
	error = rt_primary_context(peer, &peer_context);
	if (error != cudaSuccess)
		return error;
	return rt_result(enable ? rt_driver.cuCtxEnablePeerAccess(peer_context, 0)
				: rt_driver.cuCtxDisablePeerAccess(peer_context));
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

static enum cudaFuncCache cache_config = cudaFuncCachePreferNone;

RT_EXPORT cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config)
{
	if ((unsigned)config > cudaFuncCachePreferEqual)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error == cudaSuccess)
		cache_config = config;
	return error;
}

RT_EXPORT cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *config)
{
	if (!config)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error == cudaSuccess)
		*config = cache_config;
	return error;
}

/* Hopper's shared memory banks are four bytes wide, whatever is asked
 * (the calls are deprecated, still exported and served). */
RT_EXPORT cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
	if ((unsigned)config > cudaSharedMemBankSizeEightByte)
		return rt_fail(cudaErrorInvalidValue);
	return rt_context();
}

RT_EXPORT cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *config)
{
	if (!config)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error == cudaSuccess)
		*config = cudaSharedMemBankSizeFourByte;
	return error;
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
	if (!symbol || !fn || version > INT_MAX) /* INT_MAX: newer than any driver */
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	CUdriverProcAddressQueryResult driver_status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	CUresult rc = rt_driver.cuGetProcAddress(symbol, fn, (int)version, driver_flags(flags),
						 &driver_status);
	if (status && rc == CUDA_SUCCESS)
		*status = (enum cudaDriverEntryPointQueryResult)driver_status;
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
