/* Stand-in runtime: allocation, free, copies and sets, each one call into
 * the driver as the real runtime makes it. */
#include <string.h>

#include "runtime.h"

RT_EXPORT cudaError_t cudaMalloc(void **ptr, size_t size)
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

RT_EXPORT cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
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

RT_EXPORT cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitched, struct cudaExtent extent)
{
	if (!pitched)
		return rt_fail(cudaErrorInvalidValue);
	if (extent.height != 0 && extent.depth > SIZE_MAX / extent.height)
		return rt_fail(cudaErrorInvalidValue);
	void *ptr = NULL;
	size_t pitch = 0;
	cudaError_t error =
		cudaMallocPitch(&ptr, &pitch, extent.width, extent.height * extent.depth);
	if (error == cudaSuccess)
		*pitched = (struct cudaPitchedPtr){ptr, pitch, extent.width, extent.height};
	return error;
}

RT_EXPORT cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
	if (!ptr || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemAllocManaged((CUdeviceptr *)ptr, size, flags));
}

RT_EXPORT cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
	if (!ptr)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemHostAlloc(ptr, size, flags));
}

RT_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
	return cudaHostAlloc(ptr, size, cudaHostAllocDefault);
}

RT_EXPORT cudaError_t cudaFree(void *ptr)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess || !ptr)
		return error; /* cudaFree(NULL) only initialises the context */
	CUresult rc = rt_driver.cuMemFree((CUdeviceptr)ptr);
	if (rc == CUDA_ERROR_INVALID_VALUE)
		return rt_fail(cudaErrorInvalidDevicePointer);
	return rt_result(rc);
}

RT_EXPORT cudaError_t cudaFreeHost(void *ptr)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess || !ptr)
		return error;
	return rt_result(rt_driver.cuMemFreeHost(ptr));
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

RT_EXPORT cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaStream_t stream)
{
	return malloc_async(ptr, size, stream, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaMallocAsync_ptsz(void **ptr, size_t size, cudaStream_t stream)
{
	return malloc_async(ptr, size, stream, RT_PER_THREAD_STREAM);
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

RT_EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t pool,
					      cudaStream_t stream)
{
	return malloc_from_pool(ptr, size, pool, stream, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t pool,
						   cudaStream_t stream)
{
	return malloc_from_pool(ptr, size, pool, stream, RT_PER_THREAD_STREAM);
}

static cudaError_t free_async(void *ptr, cudaStream_t stream, enum rt_stream_mode mode)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemFreeAsync[mode]((CUdeviceptr)ptr, stream));
}

RT_EXPORT cudaError_t cudaFreeAsync(void *ptr, cudaStream_t stream)
{
	return free_async(ptr, stream, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaFreeAsync_ptsz(void *ptr, cudaStream_t stream)
{
	return free_async(ptr, stream, RT_PER_THREAD_STREAM);
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

RT_EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemHostRegister(ptr, size, flags));
}

RT_EXPORT cudaError_t cudaHostUnregister(void *ptr)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemHostUnregister(ptr));
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
RT_EXPORT cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t count,
					   struct cudaMemLocation location, unsigned int flags,
					   cudaStream_t stream)
{
	(void)count, (void)location, (void)flags, (void)stream;
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return ptr ? cudaSuccess : rt_fail(cudaErrorInvalidValue);
}

RT_EXPORT cudaError_t cudaMemAdvise(const void *ptr, size_t count, enum cudaMemoryAdvise advice,
				    struct cudaMemLocation location)
{
	(void)count, (void)advice, (void)location;
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return ptr ? cudaSuccess : rt_fail(cudaErrorInvalidValue);
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

RT_EXPORT cudaError_t cudaIpcOpenMemHandle(void **ptr, cudaIpcMemHandle_t handle,
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

RT_EXPORT cudaError_t cudaIpcCloseMemHandle(void *ptr)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuIpcCloseMemHandle((CUdeviceptr)ptr));
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

RT_EXPORT cudaError_t cudaExternalMemoryGetMappedBuffer(
	void **ptr, cudaExternalMemory_t external, const struct cudaExternalMemoryBufferDesc *desc)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuExternalMemoryGetMappedBuffer(
		(CUdeviceptr *)ptr, (CUexternalMemory)external,
		(const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *)desc));
}

RT_EXPORT cudaError_t cudaDestroyExternalMemory(cudaExternalMemory_t external)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDestroyExternalMemory((CUexternalMemory)external));
}
