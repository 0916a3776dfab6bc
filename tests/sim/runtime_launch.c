/* Stand-in runtime: the registration and launch plumbing that nvcc emits.
 * As the real runtime does, it loads a program's fat binary as a module
 * through the driver when one of its kernels is first needed, and launches
 * kernels (as no-ops) through cuLaunchKernel. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

/* As many devices as the runtime keeps a module for; a kernel launched on
 * a device beyond them fails as one with no image would. */
#define RT_MAX_DEVICES 16

/* A program's (or a library's) fat binary: its handle is the address of
 * this struct's first field, which nvcc's code passes back. As the real
 * runtime does, it is loaded into each device's (primary) context on the
 * first need there: a module, and its functions, belong to one context. */
struct fat_binary {
	const void *wrapper; /* nvcc's __fatBinC_Wrapper_t, which cuModuleLoadData takes */
	CUmodule module[RT_MAX_DEVICES];
	struct fat_binary *next;
};

struct registered_function {
	const void *host; /* the stub nvcc writes; what the program launches */
	struct fat_binary *fat_binary;
	const char *device_name;
	CUfunction loaded[RT_MAX_DEVICES];
	struct registered_function *next;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fat_binary *fat_binaries; /* kept for the process's life */
static struct registered_function *registered;

RT_EXPORT void **__cudaRegisterFatBinary(void *fat_cubin)
{
	struct fat_binary *fat_binary = calloc(1, sizeof(*fat_binary));
	if (!fat_binary)
		return NULL;
	fat_binary->wrapper = fat_cubin;
	pthread_mutex_lock(&registry_lock);
	fat_binary->next = fat_binaries;
	fat_binaries = fat_binary;
	pthread_mutex_unlock(&registry_lock);
	return (void **)fat_binary;
}

RT_EXPORT void __cudaRegisterFatBinaryEnd(void **handle)
{
	(void)handle;
}

/* The module (if one was loaded) lives until the process ends, as its
 * kernels may still be launched from other modules' destructors. */
RT_EXPORT void __cudaUnregisterFatBinary(void **handle)
{
	(void)handle;
}

RT_EXPORT void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
				      const char *device_name, int thread_limit, uint3 *tid,
				      uint3 *bid, dim3 *block, dim3 *grid, int *warp_size)
{
	(void)device_fun, (void)thread_limit, (void)tid, (void)bid, (void)block, (void)grid;
	(void)warp_size;
	struct registered_function *function = calloc(1, sizeof(*function));
	if (!handle || !function) {
		free(function);
		return;
	}
	*function = (struct registered_function){.host = host_fun,
						 .fat_binary = (struct fat_binary *)handle,
						 .device_name = device_name};
	pthread_mutex_lock(&registry_lock);
	function->next = registered;
	registered = function;
	pthread_mutex_unlock(&registry_lock);
}

/* The function in the current device's context, loading its fat binary
 * there first if it is not yet. */
static cudaError_t load_function(struct registered_function *function, int device)
{
	struct fat_binary *fat_binary = function->fat_binary;
	if (device < 0 || device >= RT_MAX_DEVICES)
		return rt_fail(cudaErrorNoKernelImageForDevice);
	if (!fat_binary->module[device]) {
		CUresult rc = rt_driver.cuModuleLoadData(&fat_binary->module[device],
							 fat_binary->wrapper);
		if (rc == CUDA_ERROR_NO_BINARY_FOR_GPU)
			return rt_fail(cudaErrorNoKernelImageForDevice);
		if (rc != CUDA_SUCCESS)
			return rt_result(rc);
	}
	if (function->loaded[device])
		return cudaSuccess;
	CUresult rc = rt_driver.cuModuleGetFunction(
		&function->loaded[device], fat_binary->module[device], function->device_name);
	return rc == CUDA_SUCCESS ? cudaSuccess : rt_fail(cudaErrorInvalidDeviceFunction);
}

cudaError_t rt_function(const void *host, CUfunction *out)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	pthread_mutex_lock(&registry_lock);
	struct registered_function *function = registered;
	while (function && function->host != host)
		function = function->next;
	/* The context current now may be one the program made and pushed. */
	CUdevice device = -1;
	rt_driver.cuCtxGetDevice(&device);
	if (function)
		error = load_function(function, device);
	if (function && error == cudaSuccess)
		*out = function->loaded[device];
	pthread_mutex_unlock(&registry_lock);
	if (function)
		return error;
	/* Not a stub nvcc registered: perhaps a library's kernel, which the
	 * driver knows. */
	if (host && rt_driver.cuKernelGetFunction(out, (CUkernel)host) == CUDA_SUCCESS)
		return cudaSuccess;
	return rt_fail(cudaErrorInvalidDeviceFunction);
}

/* A program's __device__ and __constant__ variables: nvcc's host shadow
 * stands for the device copy, as kernels never run. */
struct registered_variable {
	const void *host;
	size_t bytes;
	struct registered_variable *next;
};

static struct registered_variable *variables;

static void register_variable(const void *host, size_t bytes)
{
	struct registered_variable *variable = malloc(sizeof(*variable));
	if (!variable)
		return;
	pthread_mutex_lock(&registry_lock);
	*variable = (struct registered_variable){host, bytes, variables};
	variables = variable;
	pthread_mutex_unlock(&registry_lock);
}

bool rt_variable(const void *host, size_t *bytes)
{
	pthread_mutex_lock(&registry_lock);
	struct registered_variable *variable = variables;
	while (variable && variable->host != host)
		variable = variable->next;
	if (variable)
		*bytes = variable->bytes;
	pthread_mutex_unlock(&registry_lock);
	return variable != NULL;
}

const void *rt_host_of(CUfunction function)
{
	pthread_mutex_lock(&registry_lock);
	const void *host = function;
	for (struct registered_function *registration = registered; registration;
	     registration = registration->next)
		for (int device = 0; device < RT_MAX_DEVICES; device++)
			if (function && registration->loaded[device] == function)
				host = registration->host;
	pthread_mutex_unlock(&registry_lock);
	return host;
}

RT_EXPORT void __cudaRegisterVar(void **handle, char *host_var, char *device_address,
				 const char *device_name, int ext, size_t size, int constant,
				 int global)
{
	(void)handle, (void)device_address, (void)device_name, (void)ext, (void)constant;
	(void)global;
	register_variable(host_var, size);
}

RT_EXPORT void __cudaRegisterManagedVar(void **handle, void **host_var_address,
					char *device_address, const char *device_name, int ext,
					size_t size, int constant, int global)
{
	(void)handle, (void)device_address, (void)device_name, (void)ext, (void)constant;
	(void)global;
	if (host_var_address)
		register_variable(*host_var_address, size);
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

bool rt_configuration_fits(dim3 grid, dim3 block)
{
	uint64_t threads = (uint64_t)block.x * block.y * block.z;
	return grid.x && grid.y && grid.z && grid.x <= 0x7fffffffu && grid.y <= 65535 &&
	       grid.z <= 65535 && threads && threads <= 1024 && block.x <= 1024 &&
	       block.y <= 1024 && block.z <= 64;
}

static cudaError_t launch(const void *kernel, dim3 grid, dim3 block, void **args,
			  size_t shared_bytes, cudaStream_t stream, enum rt_stream_mode mode)
{
	if (!kernel)
		return rt_fail(cudaErrorInvalidDeviceFunction);
	if (!rt_configuration_fits(grid, block))
		return rt_fail(cudaErrorInvalidConfiguration);
	CUfunction function;
	cudaError_t error = rt_function(kernel, &function);
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuLaunchKernel[mode](function, grid.x, grid.y, grid.z, block.x,
							block.y, block.z, (unsigned)shared_bytes,
							(CUstream)stream, args, NULL));
}

RT_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
					 size_t shared_bytes, cudaStream_t stream)
{
	return launch(kernel, grid, block, args, shared_bytes, stream, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
					      void **args, size_t shared_bytes, cudaStream_t stream)
{
	return launch(kernel, grid, block, args, shared_bytes, stream, RT_PER_THREAD_STREAM);
}

RT_EXPORT cudaError_t cudaLaunchKernel(const void *function, dim3 grid, dim3 block, void **args,
				       size_t shared_bytes, cudaStream_t stream)
{
	return launch(function, grid, block, args, shared_bytes, stream, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *function, dim3 grid, dim3 block,
					    void **args, size_t shared_bytes, cudaStream_t stream)
{
	return launch(function, grid, block, args, shared_bytes, stream, RT_PER_THREAD_STREAM);
}

/* A cooperative launch is a launch whose blocks must all be resident at
 * once: no more of them than the device holds. */
static cudaError_t launch_cooperative(const void *kernel, dim3 grid, dim3 block, void **args,
				      size_t shared_bytes, cudaStream_t stream,
				      enum rt_stream_mode mode)
{
	int per_multiprocessor = 0, multiprocessors = 0, device = rt_current_device();
	cudaError_t error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		&per_multiprocessor, kernel, (int)(block.x * block.y * block.z), shared_bytes);
	if (error == cudaSuccess)
		error = cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount,
					       device);
	if (error != cudaSuccess)
		return error;
	if ((uint64_t)grid.x * grid.y * grid.z > (uint64_t)per_multiprocessor * multiprocessors)
		return rt_fail(cudaErrorCooperativeLaunchTooLarge);
	return launch(kernel, grid, block, args, shared_bytes, stream, mode);
}

RT_EXPORT cudaError_t cudaLaunchCooperativeKernel(const void *function, dim3 grid, dim3 block,
						  void **args, size_t shared_bytes,
						  cudaStream_t stream)
{
	return launch_cooperative(function, grid, block, args, shared_bytes, stream,
				  RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *function, dim3 grid, dim3 block,
						       void **args, size_t shared_bytes,
						       cudaStream_t stream)
{
	return launch_cooperative(function, grid, block, args, shared_bytes, stream,
				  RT_PER_THREAD_STREAM);
}

/* What cudaLaunchKernelEx compiles to. Launch attributes (clusters,
 * priorities, policies) change nothing where kernels do not run. */
RT_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *function,
					  void **args)
{
	if (!config || (config->numAttrs && !config->attrs))
		return rt_fail(cudaErrorInvalidValue);
	return launch(function, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
		      config->stream, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config,
					       const void *function, void **args)
{
	if (!config || (config->numAttrs && !config->attrs))
		return rt_fail(cudaErrorInvalidValue);
	return launch(function, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
		      config->stream, RT_PER_THREAD_STREAM);
}

RT_EXPORT cudaError_t cudaGetFuncBySymbol(cudaFunction_t *out, const void *host)
{
	if (!out)
		return rt_fail(cudaErrorInvalidValue);
	return rt_function(host, (CUfunction *)out);
}

RT_EXPORT cudaError_t cudaFuncGetName(const char **name, const void *host)
{
	if (!name)
		return rt_fail(cudaErrorInvalidValue);
	CUfunction function;
	cudaError_t error = rt_function(host, &function);
	return error == cudaSuccess ? rt_result(rt_driver.cuFuncGetName(name, function)) : error;
}
