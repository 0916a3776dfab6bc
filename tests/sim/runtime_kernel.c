/* Stand-in runtime: what a program asks of its kernels (attributes,
 * occupancy), answered by the driver for the function behind nvcc's host
 * stub, as the real runtime answers it. */
#include <string.h>

#include "runtime.h"

static int function_attribute(CUfunction function, CUfunction_attribute which)
{
	int value = 0;
	rt_driver.cuFuncGetAttribute(&value, which, function);
	return value;
}

RT_EXPORT cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attributes, const void *host)
{
	if (!attributes)
		return rt_fail(cudaErrorInvalidValue);
	CUfunction function;
	cudaError_t error = rt_function(host, &function);
	if (error != cudaSuccess)
		return error;
	memset(attributes, 0, sizeof(*attributes));
	attributes->maxThreadsPerBlock =
		function_attribute(function, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
	attributes->ptxVersion = function_attribute(function, CU_FUNC_ATTRIBUTE_PTX_VERSION);
	attributes->binaryVersion = function_attribute(function, CU_FUNC_ATTRIBUTE_BINARY_VERSION);
	attributes->maxDynamicSharedSizeBytes =
		function_attribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
	attributes->preferredShmemCarveout =
		function_attribute(function, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
	return cudaSuccess;
}

/* The runtime's attribute values are the driver's. */
RT_EXPORT cudaError_t cudaFuncSetAttribute(const void *host, enum cudaFuncAttribute attribute,
					   int value)
{
	CUfunction function;
	cudaError_t error = rt_function(host, &function);
	if (error != cudaSuccess)
		return error;
	CUfunction_attribute which = attribute == cudaFuncAttributeMaxDynamicSharedMemorySize
					     ? CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
				     : attribute == cudaFuncAttributePreferredSharedMemoryCarveout
					     ? CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
					     : CU_FUNC_ATTRIBUTE_MAX;
	if (which == CU_FUNC_ATTRIBUTE_MAX)
		return rt_fail(cudaErrorInvalidValue);
	return rt_result(rt_driver.cuFuncSetAttribute(function, which, value));
}

RT_EXPORT cudaError_t cudaFuncSetCacheConfig(const void *host, enum cudaFuncCache config)
{
	CUfunction function;
	if (config > cudaFuncCachePreferEqual)
		return rt_fail(cudaErrorInvalidValue);
	return rt_function(host, &function);
}

RT_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
	int *blocks, const void *host, int block_size, size_t shared_bytes, unsigned int flags)
{
	if (!blocks)
		return rt_fail(cudaErrorInvalidValue);
	CUfunction function;
	cudaError_t error = rt_function(host, &function);
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
		blocks, function, block_size, shared_bytes, flags));
}

RT_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *host,
								    int block_size,
								    size_t shared_bytes)
{
	return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, host, block_size,
								      shared_bytes, 0);
}

RT_EXPORT cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *bytes, const void *host,
								int blocks, int block_size)
{
	CUfunction function;
	cudaError_t error = rt_function(host, &function);
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuOccupancyAvailableDynamicSMemPerBlock(bytes, function, blocks,
									   block_size));
}
