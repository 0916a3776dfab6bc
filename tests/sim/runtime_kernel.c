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

RT_EXPORT cudaError_t cudaFuncSetSharedMemConfig(const void *host, enum cudaSharedMemConfig config)
{
	CUfunction function;
	if ((unsigned)config > cudaSharedMemBankSizeEightByte)
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

RT_EXPORT cudaError_t cudaGetKernel(cudaKernel_t *kernel, const void *host)
{
	if (!kernel)
		return rt_fail(cudaErrorInvalidValue);
	return rt_function(host, (CUfunction *)kernel);
}

/* Libraries: the runtime's options share the driver's values. */
RT_EXPORT cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *image,
					  enum cudaJitOption *jit_options, void **jit_values,
					  unsigned int jit_count,
					  enum cudaLibraryOption *library_options,
					  void **library_values, unsigned int library_count)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuLibraryLoadData(
		(CUlibrary *)library, image, (CUjit_option *)jit_options, jit_values, jit_count,
		(CUlibraryOption *)library_options, library_values, library_count));
}

RT_EXPORT cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t *library, const char *path,
					      enum cudaJitOption *jit_options, void **jit_values,
					      unsigned int jit_count,
					      enum cudaLibraryOption *library_options,
					      void **library_values, unsigned int library_count)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuLibraryLoadFromFile(
		(CUlibrary *)library, path, (CUjit_option *)jit_options, jit_values, jit_count,
		(CUlibraryOption *)library_options, library_values, library_count));
}

RT_EXPORT cudaError_t cudaLibraryUnload(cudaLibrary_t library)
{
	cudaError_t error = rt_init();
	return error == cudaSuccess ? rt_result(rt_driver.cuLibraryUnload((CUlibrary)library))
				    : error;
}

RT_EXPORT cudaError_t cudaLibraryGetKernel(cudaKernel_t *kernel, cudaLibrary_t library,
					   const char *name)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(
		rt_driver.cuLibraryGetKernel((CUkernel *)kernel, (CUlibrary)library, name));
}

RT_EXPORT cudaError_t cudaLibraryGetKernelCount(unsigned int *count, cudaLibrary_t library)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuLibraryGetKernelCount(count, (CUlibrary)library));
}

RT_EXPORT cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t *kernels, unsigned int count,
						  cudaLibrary_t library)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuLibraryEnumerateKernels((CUkernel *)kernels, count,
							     (CUlibrary)library));
}
