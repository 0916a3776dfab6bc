/* Stand-in runtime: the registration and launch plumbing that nvcc emits.
 * Fat binaries are accepted and kernels do nothing. */

#include "runtime.h"

struct launch_configuration {
	dim3 grid;
	dim3 block;
	size_t shared_bytes;
	void *stream;
};

#define CONFIGURATION_DEPTH 16
static __thread struct launch_configuration configurations[CONFIGURATION_DEPTH];
static __thread unsigned configuration_depth;

static void *fat_binary_handle;

RT_EXPORT void **__cudaRegisterFatBinary(void *fat_cubin)
{
	(void)fat_cubin;
	return &fat_binary_handle;
}

RT_EXPORT void __cudaRegisterFatBinaryEnd(void **handle)
{
	(void)handle;
}

RT_EXPORT void __cudaUnregisterFatBinary(void **handle)
{
	(void)handle;
}

RT_EXPORT void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
				      const char *device_name, int thread_limit, uint3 *tid,
				      uint3 *bid, dim3 *block, dim3 *grid, int *warp_size)
{
	(void)handle, (void)host_fun, (void)device_fun, (void)device_name;
	(void)thread_limit, (void)tid, (void)bid, (void)block, (void)grid, (void)warp_size;
}

RT_EXPORT void __cudaRegisterVar(void **handle, char *host_var, char *device_address,
				 const char *device_name, int ext, size_t size, int constant,
				 int global)
{
	(void)handle, (void)host_var, (void)device_address, (void)device_name;
	(void)ext, (void)size, (void)constant, (void)global;
}

RT_EXPORT void __cudaRegisterManagedVar(void **handle, void **host_var_address,
					char *device_address, const char *device_name, int ext,
					size_t size, int constant, int global)
{
	(void)handle, (void)host_var_address, (void)device_address, (void)device_name;
	(void)ext, (void)size, (void)constant, (void)global;
}

RT_EXPORT char __cudaInitModule(void **handle)
{
	(void)handle;
	return 1;
}

RT_EXPORT unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_bytes,
					       struct CUstream_st *stream)
{
	if (configuration_depth == CONFIGURATION_DEPTH)
		return 1;
	configurations[configuration_depth++] =
		(struct launch_configuration){grid, block, shared_bytes, stream};
	return 0;
}

RT_EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared_bytes,
						 void *stream)
{
	if (configuration_depth == 0)
		return rt_fail(cudaErrorInvalidConfiguration);
	struct launch_configuration *top = &configurations[--configuration_depth];
	*grid = top->grid;
	*block = top->block;
	*shared_bytes = top->shared_bytes;
	*(void **)stream = top->stream;
	return cudaSuccess;
}

RT_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *function)
{
	if (!kernel || !function)
		return rt_fail(cudaErrorInvalidDeviceFunction);
	*kernel = (cudaKernel_t)function;
	return cudaSuccess;
}

static cudaError_t launch(const void *kernel)
{
	if (!kernel)
		return rt_fail(cudaErrorInvalidDeviceFunction);
	return rt_context();
}

RT_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
					 size_t shared_bytes, cudaStream_t stream)
{
	(void)grid, (void)block, (void)args, (void)shared_bytes, (void)stream;
	return launch(kernel);
}

RT_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
					      void **args, size_t shared_bytes, cudaStream_t stream)
{
	return __cudaLaunchKernel(kernel, grid, block, args, shared_bytes, stream);
}

RT_EXPORT cudaError_t cudaLaunchKernel(const void *function, dim3 grid, dim3 block, void **args,
				       size_t shared_bytes, cudaStream_t stream)
{
	(void)grid, (void)block, (void)args, (void)shared_bytes, (void)stream;
	return launch(function);
}

RT_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *function, dim3 grid, dim3 block,
					    void **args, size_t shared_bytes, cudaStream_t stream)
{
	return cudaLaunchKernel(function, grid, block, args, shared_bytes, stream);
}
