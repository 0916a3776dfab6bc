/* Stand-in runtime: stream-ordered memory pools, each call passed on to
 * the driver entry point the runtime resolved. The runtime's pool
 * properties and attributes share the driver's layout and values, and
 * pool calls need the driver loaded but no current context. */
#include "runtime.h"

static cudaError_t untraced_cudaMemPoolCreate(cudaMemPool_t *pool,
					      const struct cudaMemPoolProps *props)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(
		rt_driver.cuMemPoolCreate((CUmemoryPool *)pool, (const CUmemPoolProps *)props));
}

RT_EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const struct cudaMemPoolProps *props)
{
	cudaMemPoolCreate_v11020_params params = {pool, props};
	return RT_TRACED(cudaMemPoolCreate_v11020, &params,
			 untraced_cudaMemPoolCreate(pool, props));
}

static cudaError_t untraced_cudaMemPoolDestroy(cudaMemPool_t pool)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemPoolDestroy((CUmemoryPool)pool));
}

RT_EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool)
{
	cudaMemPoolDestroy_v11020_params params = {pool};
	return RT_TRACED(cudaMemPoolDestroy_v11020, &params, untraced_cudaMemPoolDestroy(pool));
}

static cudaError_t untraced_cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemPoolTrimTo((CUmemoryPool)pool, keep));
}

RT_EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep)
{
	cudaMemPoolTrimTo_v11020_params params = {pool, keep};
	return RT_TRACED(cudaMemPoolTrimTo_v11020, &params, untraced_cudaMemPoolTrimTo(pool, keep));
}

RT_EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attribute,
					      void *value)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemPoolGetAttribute((CUmemoryPool)pool,
							 (CUmemPool_attribute)attribute, value));
}

RT_EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attribute,
					      void *value)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemPoolSetAttribute((CUmemoryPool)pool,
							 (CUmemPool_attribute)attribute, value));
}

RT_EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device)
{
	if (!pool)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDeviceGetDefaultMemPool((CUmemoryPool *)pool, device));
}

RT_EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int device)
{
	if (!pool)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDeviceGetMemPool((CUmemoryPool *)pool, device));
}

RT_EXPORT cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDeviceSetMemPool(device, (CUmemoryPool)pool));
}

RT_EXPORT cudaError_t cudaMemPoolExportToShareableHandle(void *handle, cudaMemPool_t pool,
							 enum cudaMemAllocationHandleType type,
							 unsigned int flags)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemPoolExportToShareableHandle(
		handle, (CUmemoryPool)pool, (CUmemAllocationHandleType)type, flags));
}

RT_EXPORT cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *pool, void *handle,
							   enum cudaMemAllocationHandleType type,
							   unsigned int flags)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemPoolImportFromShareableHandle(
		(CUmemoryPool *)pool, handle, (CUmemAllocationHandleType)type, flags));
}

RT_EXPORT cudaError_t cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData *data, void *ptr)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(
		rt_driver.cuMemPoolExportPointer((CUmemPoolPtrExportData *)data, (CUdeviceptr)ptr));
}

static cudaError_t untraced_cudaMemPoolImportPointer(void **ptr, cudaMemPool_t pool,
						     struct cudaMemPoolPtrExportData *data)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemPoolImportPointer((CUdeviceptr *)ptr, (CUmemoryPool)pool,
							  (CUmemPoolPtrExportData *)data));
}

RT_EXPORT cudaError_t cudaMemPoolImportPointer(void **ptr, cudaMemPool_t pool,
					       struct cudaMemPoolPtrExportData *data)
{
	cudaMemPoolImportPointer_v11020_params params = {ptr, pool, data};
	return RT_TRACED(cudaMemPoolImportPointer_v11020, &params,
			 untraced_cudaMemPoolImportPointer(ptr, pool, data));
}

/* Access descriptions and flags share the driver's layout and values. */
RT_EXPORT cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const struct cudaMemAccessDesc *map,
					   size_t count)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemPoolSetAccess((CUmemoryPool)pool,
						      (const CUmemAccessDesc *)map, count));
}

RT_EXPORT cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t pool,
					   struct cudaMemLocation *location)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMemPoolGetAccess(
		(CUmemAccess_flags *)flags, (CUmemoryPool)pool, (CUmemLocation *)location));
}
