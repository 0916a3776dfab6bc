/* Stand-in runtime: allocation, free, copies and sets, each one call into
 * the driver as the real runtime makes it. */
#include <string.h>

#include "runtime.h"

static cudaError_t untraced_cudaMalloc(void **ptr, size_t size)
{
	if (!ptr)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	if (size == 0) {
		*ptr = NULL; /* the runtime answers a zero-byte request itself */
		return cudaSuccess;
	}
	return rt_result(rt_driver.cuMemAlloc((CUdeviceptr *)ptr, size));
}

RT_EXPORT cudaError_t cudaMalloc(void **ptr, size_t size)
{
	cudaMalloc_v3020_params params = {ptr, size};
	return RT_TRACED(cudaMalloc_v3020, &params, untraced_cudaMalloc(ptr, size));
}

static cudaError_t untraced_cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
	if (!ptr || !pitch)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	if (width == 0 || height == 0) {
		*ptr = NULL;
		*pitch = 0;
		return cudaSuccess;
	}
	return rt_result(rt_driver.cuMemAllocPitch((CUdeviceptr *)ptr, pitch, width, height, 16));
}

RT_EXPORT cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
	cudaMallocPitch_v3020_params params = {ptr, pitch, width, height};
	return RT_TRACED(cudaMallocPitch_v3020, &params,
			 untraced_cudaMallocPitch(ptr, pitch, width, height));
}

static cudaError_t untraced_cudaMalloc3D(struct cudaPitchedPtr *pitched, struct cudaExtent extent)
{
	if (!pitched)
		return rt_fail(cudaErrorInvalidValue);
	if (extent.height != 0 && extent.depth > SIZE_MAX / extent.height)
		return rt_fail(cudaErrorInvalidValue);
	void *ptr = NULL;
	size_t pitch = 0;
	cudaError_t error =
		untraced_cudaMallocPitch(&ptr, &pitch, extent.width, extent.height * extent.depth);
	if (error == cudaSuccess)
		*pitched = (struct cudaPitchedPtr){ptr, pitch, extent.width, extent.height};
	return error;
}

RT_EXPORT cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitched, struct cudaExtent extent)
{
	cudaMalloc3D_v3020_params params = {pitched, extent};
	return RT_TRACED(cudaMalloc3D_v3020, &params, untraced_cudaMalloc3D(pitched, extent));
}

static cudaError_t untraced_cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
	if (!ptr || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemAllocManaged((CUdeviceptr *)ptr, size, flags));
}

RT_EXPORT cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
	cudaMallocManaged_v6000_params params = {ptr, size, flags};
	return RT_TRACED(cudaMallocManaged_v6000, &params,
			 untraced_cudaMallocManaged(ptr, size, flags));
}

static cudaError_t untraced_cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
	const unsigned int known =
		cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
	if (!ptr)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	if (size == 0 && !(flags & ~known)) {
		*ptr = NULL; /* as for cudaMalloc, the runtime answers it itself */
		return cudaSuccess;
	}
	return rt_result(rt_driver.cuMemHostAlloc(ptr, size, flags));
}

RT_EXPORT cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
	cudaHostAlloc_v3020_params params = {ptr, size, flags};
	return RT_TRACED(cudaHostAlloc_v3020, &params, untraced_cudaHostAlloc(ptr, size, flags));
}

static cudaError_t untraced_cudaMallocHost(void **ptr, size_t size)
{
	return untraced_cudaHostAlloc(ptr, size, cudaHostAllocDefault);
}

RT_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
	cudaMallocHost_v3020_params params = {ptr, size};
	return RT_TRACED(cudaMallocHost_v3020, &params, untraced_cudaMallocHost(ptr, size));
}

static cudaError_t untraced_cudaFree(void *ptr)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess || !ptr)
		return error; /* untraced_cudaFree(NULL) only initialises the context */
	/* An unknown or freed pointer is cudaErrorInvalidValue, as the header
	 * says; cudaErrorInvalidDevicePointer was CUDA 10.0's answer. */
	return rt_result(rt_driver.cuMemFree((CUdeviceptr)ptr));
}

RT_EXPORT cudaError_t cudaFree(void *ptr)
{
	cudaFree_v3020_params params = {ptr};
	return RT_TRACED(cudaFree_v3020, &params, untraced_cudaFree(ptr));
}

static cudaError_t untraced_cudaFreeHost(void *ptr)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess || !ptr)
		return error;
	return rt_result(rt_driver.cuMemFreeHost(ptr));
}

RT_EXPORT cudaError_t cudaFreeHost(void *ptr)
{
	cudaFreeHost_v3020_params params = {ptr};
	return RT_TRACED(cudaFreeHost_v3020, &params, untraced_cudaFreeHost(ptr));
}

static cudaError_t malloc_async(void **ptr, size_t size, cudaStream_t stream,
				enum rt_stream_mode mode)
{
	if (!ptr)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemAllocAsync[mode]((CUdeviceptr *)ptr, size, stream));
}

static cudaError_t untraced_cudaMallocAsync(void **ptr, size_t size, cudaStream_t stream)
{
	return malloc_async(ptr, size, stream, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaStream_t stream)
{
	cudaMallocAsync_v11020_params params = {ptr, size, stream};
	return RT_TRACED(cudaMallocAsync_v11020, &params,
			 untraced_cudaMallocAsync(ptr, size, stream));
}

static cudaError_t untraced_cudaMallocAsync_ptsz(void **ptr, size_t size, cudaStream_t stream)
{
	return malloc_async(ptr, size, stream, RT_PER_THREAD_STREAM);
}

RT_EXPORT cudaError_t cudaMallocAsync_ptsz(void **ptr, size_t size, cudaStream_t stream)
{
	cudaMallocAsync_ptsz_v11020_params params = {ptr, size, stream};
	return RT_TRACED(cudaMallocAsync_ptsz_v11020, &params,
			 untraced_cudaMallocAsync_ptsz(ptr, size, stream));
}

static cudaError_t malloc_from_pool(void **ptr, size_t size, cudaMemPool_t pool,
				    cudaStream_t stream, enum rt_stream_mode mode)
{
	if (!ptr)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemAllocFromPoolAsync[mode]((CUdeviceptr *)ptr, size,
								 (CUmemoryPool)pool, stream));
}

static cudaError_t untraced_cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t pool,
						    cudaStream_t stream)
{
	return malloc_from_pool(ptr, size, pool, stream, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t pool,
					      cudaStream_t stream)
{
	cudaMallocFromPoolAsync_v11020_params params = {ptr, size, pool, stream};
	return RT_TRACED(cudaMallocFromPoolAsync_v11020, &params,
			 untraced_cudaMallocFromPoolAsync(ptr, size, pool, stream));
}

static cudaError_t untraced_cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size,
							 cudaMemPool_t pool, cudaStream_t stream)
{
	return malloc_from_pool(ptr, size, pool, stream, RT_PER_THREAD_STREAM);
}

RT_EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t pool,
						   cudaStream_t stream)
{
	cudaMallocFromPoolAsync_ptsz_v11020_params params = {ptr, size, pool, stream};
	return RT_TRACED(cudaMallocFromPoolAsync_ptsz_v11020, &params,
			 untraced_cudaMallocFromPoolAsync_ptsz(ptr, size, pool, stream));
}

static cudaError_t free_async(void *ptr, cudaStream_t stream, enum rt_stream_mode mode)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemFreeAsync[mode]((CUdeviceptr)ptr, stream));
}

static cudaError_t untraced_cudaFreeAsync(void *ptr, cudaStream_t stream)
{
	return free_async(ptr, stream, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaFreeAsync(void *ptr, cudaStream_t stream)
{
	cudaFreeAsync_v11020_params params = {ptr, stream};
	return RT_TRACED(cudaFreeAsync_v11020, &params, untraced_cudaFreeAsync(ptr, stream));
}

static cudaError_t untraced_cudaFreeAsync_ptsz(void *ptr, cudaStream_t stream)
{
	return free_async(ptr, stream, RT_PER_THREAD_STREAM);
}

RT_EXPORT cudaError_t cudaFreeAsync_ptsz(void *ptr, cudaStream_t stream)
{
	cudaFreeAsync_ptsz_v11020_params params = {ptr, stream};
	return RT_TRACED(cudaFreeAsync_ptsz_v11020, &params,
			 untraced_cudaFreeAsync_ptsz(ptr, stream));
}

RT_EXPORT cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
	if (!free_bytes || !total_bytes)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemGetInfo(free_bytes, total_bytes));
}

static cudaError_t untraced_cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemHostRegister(ptr, size, flags));
}

RT_EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	cudaHostRegister_v4000_params params = {ptr, size, flags};
	return RT_TRACED(cudaHostRegister_v4000, &params,
			 untraced_cudaHostRegister(ptr, size, flags));
}

static cudaError_t untraced_cudaHostUnregister(void *ptr)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemHostUnregister(ptr));
}

RT_EXPORT cudaError_t cudaHostUnregister(void *ptr)
{
	cudaHostUnregister_v4000_params params = {ptr};
	return RT_TRACED(cudaHostUnregister_v4000, &params, untraced_cudaHostUnregister(ptr));
}

RT_EXPORT cudaError_t cudaHostGetDevicePointer(void **device, void *host, unsigned int flags)
{
	if (!device)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemHostGetDevicePointer((CUdeviceptr *)device, host, flags));
}

static enum cudaMemoryType runtime_memory_type(unsigned int driver_type, unsigned int managed)
{
	if (managed)
		return cudaMemoryTypeManaged;
	return driver_type == CU_MEMORYTYPE_DEVICE ? cudaMemoryTypeDevice : cudaMemoryTypeHost;
}

/* Memory CUDA does not know is "unregistered", not an error (CUDA 11+). */
RT_EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
					       const void *ptr)
{
	if (!attributes)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	memset(attributes, 0, sizeof(*attributes));
	CUdeviceptr address = (CUdeviceptr)ptr;
	unsigned int type = 0, managed = 0;
	int device = -2;
	if (rt_driver.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, address) !=
	    CUDA_SUCCESS) {
		attributes->type = cudaMemoryTypeUnregistered;
		attributes->device = -2;
		attributes->hostPointer = (void *)ptr;
		return cudaSuccess;
	}
	rt_driver.cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, address);
	rt_driver.cuPointerGetAttribute(&device, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, address);
	attributes->type = runtime_memory_type(type, managed);
	attributes->device = device;
	attributes->devicePointer = (void *)ptr;
	attributes->hostPointer = attributes->type == cudaMemoryTypeDevice ? NULL : (void *)ptr;
	return cudaSuccess;
}

/* Managed memory is always resident on the simulated device. */
/* Locations and advice share the driver's values. */
RT_EXPORT cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t count,
					   struct cudaMemLocation location, unsigned int flags,
					   cudaStream_t stream)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	CUmemLocation where = {(CUmemLocationType)location.type, location.id};
	return rt_result(rt_driver.cuMemPrefetchAsync((CUdeviceptr)ptr, count, where, flags,
						      (CUstream)stream));
}

RT_EXPORT cudaError_t cudaMemAdvise(const void *ptr, size_t count, enum cudaMemoryAdvise advice,
				    struct cudaMemLocation location)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	CUmemLocation where = {(CUmemLocationType)location.type, location.id};
	return rt_result(
		rt_driver.cuMemAdvise((CUdeviceptr)ptr, count, (CUmem_advise)advice, where));
}

RT_EXPORT cudaError_t cudaMemRangeGetAttribute(void *data, size_t size,
					       enum cudaMemRangeAttribute attribute,
					       const void *ptr, size_t count)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemRangeGetAttribute(
		data, size, (CUmem_range_attribute)attribute, (CUdeviceptr)ptr, count));
}

RT_EXPORT cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *ptr)
{
	if (!handle)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuIpcGetMemHandle((CUipcMemHandle *)handle, (CUdeviceptr)ptr));
}

static cudaError_t untraced_cudaIpcOpenMemHandle(void **ptr, cudaIpcMemHandle_t handle,
						 unsigned int flags)
{
	if (!ptr)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	CUipcMemHandle named;
	memcpy(&named, &handle, sizeof(named));
	return rt_result(rt_driver.cuIpcOpenMemHandle((CUdeviceptr *)ptr, named, flags));
}

RT_EXPORT cudaError_t cudaIpcOpenMemHandle(void **ptr, cudaIpcMemHandle_t handle,
					   unsigned int flags)
{
	cudaIpcOpenMemHandle_v4010_params params = {ptr, handle, flags};
	return RT_TRACED(cudaIpcOpenMemHandle_v4010, &params,
			 untraced_cudaIpcOpenMemHandle(ptr, handle, flags));
}

static cudaError_t untraced_cudaIpcCloseMemHandle(void *ptr)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuIpcCloseMemHandle((CUdeviceptr)ptr));
}

RT_EXPORT cudaError_t cudaIpcCloseMemHandle(void *ptr)
{
	cudaIpcCloseMemHandle_v4010_params params = {ptr};
	return RT_TRACED(cudaIpcCloseMemHandle_v4010, &params, untraced_cudaIpcCloseMemHandle(ptr));
}

/* External memory: the runtime's descriptors share the driver's layout. */
RT_EXPORT cudaError_t cudaImportExternalMemory(cudaExternalMemory_t *external,
					       const struct cudaExternalMemoryHandleDesc *desc)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuImportExternalMemory(
		(CUexternalMemory *)external, (const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *)desc));
}

static cudaError_t
untraced_cudaExternalMemoryGetMappedBuffer(void **ptr, cudaExternalMemory_t external,
					   const struct cudaExternalMemoryBufferDesc *desc)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuExternalMemoryGetMappedBuffer(
		(CUdeviceptr *)ptr, (CUexternalMemory)external,
		(const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *)desc));
}

RT_EXPORT cudaError_t cudaExternalMemoryGetMappedBuffer(
	void **ptr, cudaExternalMemory_t external, const struct cudaExternalMemoryBufferDesc *desc)
{
	cudaExternalMemoryGetMappedBuffer_v10000_params params = {ptr, external, desc};
	return RT_TRACED(cudaExternalMemoryGetMappedBuffer_v10000, &params,
			 untraced_cudaExternalMemoryGetMappedBuffer(ptr, external, desc));
}

RT_EXPORT cudaError_t cudaDestroyExternalMemory(cudaExternalMemory_t external)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDestroyExternalMemory((CUexternalMemory)external));
}
