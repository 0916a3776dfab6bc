/* Stand-in driver: modules, their kernels, and launches. An image is
 * checked as the real loader checks it (module_image.c); its kernels are
 * found by their (mangled) names and launched as no-ops, after the checks
 * of the launch configuration a real GPU makes. Loading and unloading are
 * reported to CUPTI's resource domain with the image, as the real driver
 * does. Modules and functions are never freed, so that a stale handle
 * reads as invalid rather than as freed memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module_image.h"
#include "sim.h"

#define FUNCTION_MAGIC 0x6b65726eu /* "kern" */

struct sim_module {
	int device; /* -1 for a library, which every context shares */
	bool live;
	struct sim_module *next; /* in the list of every module loaded */
	struct sim_image image;
	CUpti_ModuleResourceData resource;
	struct sim_function *functions;
	struct module_global *globals;
};

/* A variable's device memory, made on the first cuModuleGetGlobal. */
struct module_global {
	CUdeviceptr address;
	size_t bytes;
	struct module_global *next;
	char name[];
};

struct sim_function {
	uint32_t magic;
	struct sim_module *module;
	int max_dynamic_shared;
	struct sim_function *next;
	char name[];
};

static uint32_t next_module_id = 1;
static struct sim_module *modules; /* every module loaded, kept for good */

/* A module for device, or a library (device -1) for every device; all
 * simulated devices share one architecture. */
static CUresult load_image(struct sim_module **out, const void *image, int device)
{
	if (!out || !image)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_module *module = calloc(1, sizeof(*module));
	if (!module)
		return CUDA_ERROR_OUT_OF_MEMORY;
	CUresult rc =
		sim_image_read(image, sim_device_arch(device < 0 ? 0 : device), &module->image);
	if (rc != CUDA_SUCCESS) {
		free(module);
		return rc;
	}
	pthread_mutex_lock(&sim_lock);
	uint32_t id = next_module_id++;
	module->next = modules;
	modules = module;
	pthread_mutex_unlock(&sim_lock);
	module->device = device;
	module->live = true;
	module->resource = (CUpti_ModuleResourceData){id, module->image.bytes, image};
	sim_resource_event(CUPTI_CBID_RESOURCE_MODULE_LOADED, (CUcontext)sim_current_context(),
			   &module->resource);
	*out = module;
	return CUDA_SUCCESS;
}

static CUresult load(CUmodule *out, const void *image)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	return load_image((struct sim_module **)out, image, device);
}

SIM_EXPORT CUresult cuModuleLoadData(CUmodule *out, const void *image)
{
	return load(out, image);
}

/* JIT options change nothing here: no code is compiled. */
SIM_EXPORT CUresult cuModuleLoadDataEx(CUmodule *out, const void *image, unsigned int count,
				       CUjit_option *options, void **values)
{
	if (count && (!options || !values))
		return CUDA_ERROR_INVALID_VALUE;
	return load(out, image);
}

SIM_EXPORT CUresult cuModuleLoadFatBinary(CUmodule *out, const void *image)
{
	return load(out, image);
}

static void *read_file(const char *path)
{
	FILE *file = fopen(path, "rb");
	if (!file)
		return NULL;
	char *bytes = NULL;
	size_t length = 0, got;
	char buffer[65536];
	while ((got = fread(buffer, 1, sizeof(buffer), file)) > 0) {
		char *grown = realloc(bytes, length + got + 1);
		if (!grown) {
			free(bytes);
			bytes = NULL;
			break;
		}
		bytes = grown;
		memcpy(bytes + length, buffer, got);
		length += got;
	}
	fclose(file);
	if (bytes)
		bytes[length] = '\0'; /* PTX is read as text */
	return bytes;
}

SIM_EXPORT CUresult cuModuleLoad(CUmodule *out, const char *path)
{
	if (!path)
		return CUDA_ERROR_INVALID_VALUE;
	void *bytes = read_file(path);
	if (!bytes)
		return CUDA_ERROR_FILE_NOT_FOUND;
	/* The bytes stay with the module: CUPTI's subscribers may read them. */
	CUresult rc = load(out, bytes);
	if (rc != CUDA_SUCCESS)
		free(bytes);
	return rc;
}

static struct sim_module *live_module(CUmodule handle)
{
	struct sim_module *module = (struct sim_module *)handle;
	return module && module->live ? module : NULL;
}

/* sim_check_init, then the live module behind handle. */
static CUresult module_of(CUmodule handle, struct sim_module **out)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	*out = live_module(handle);
	return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuModuleUnload(CUmodule handle)
{
	struct sim_module *module;
	CUresult rc = module_of(handle, &module);
	if (rc != CUDA_SUCCESS)
		return rc;
	sim_resource_event(CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
			   (CUcontext)sim_current_context(), &module->resource);
	module->live = false;
	return CUDA_SUCCESS;
}

/* The same name gives the same handle, as on a real driver. */
static struct sim_function *function_named(struct sim_module *module, const char *name)
{
	for (struct sim_function *function = module->functions; function; function = function->next)
		if (strcmp(function->name, name) == 0)
			return function;
	size_t length = strlen(name) + 1;
	struct sim_function *function = calloc(1, sizeof(*function) + length);
	if (!function)
		return NULL;
	*function = (struct sim_function){FUNCTION_MAGIC, module, SIM_SHARED_PER_BLOCK,
					  module->functions};
	memcpy(function->name, name, length);
	module->functions = function;
	return function;
}

SIM_EXPORT CUresult cuModuleGetFunction(CUfunction *out, CUmodule handle, const char *name)
{
	struct sim_module *module;
	CUresult rc = module_of(handle, &module);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out || !name)
		return CUDA_ERROR_INVALID_VALUE;
	if (!sim_image_has(&module->image, name))
		return CUDA_ERROR_NOT_FOUND;
	pthread_mutex_lock(&sim_lock);
	struct sim_function *function = function_named(module, name);
	pthread_mutex_unlock(&sim_lock);
	if (!function)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*out = (CUfunction)function;
	return CUDA_SUCCESS;
}

/* Called with sim_lock held. */
static struct module_global *global_named(struct sim_module *module, const char *name)
{
	for (struct module_global *global = module->globals; global; global = global->next)
		if (strcmp(global->name, name) == 0)
			return global;
	return NULL;
}

/* Module memory, not an allocation: charged to no one, as the real
 * driver's module images are not. */
static CUresult untraced_module_global(CUdeviceptr *address, size_t *bytes, CUmodule handle,
				       const char *name)
{
	struct sim_module *module;
	CUresult rc = module_of(handle, &module);
	if (rc != CUDA_SUCCESS)
		return rc;
	size_t size;
	if (!name)
		return CUDA_ERROR_INVALID_VALUE;
	if (!sim_image_global(&module->image, name, &size))
		return CUDA_ERROR_NOT_FOUND;
	pthread_mutex_lock(&sim_lock);
	struct module_global *global = global_named(module, name);
	pthread_mutex_unlock(&sim_lock);
	if (!global) {
		void *memory;
		size_t length = strlen(name) + 1;
		if (!(global = calloc(1, sizeof(*global) + length)))
			return CUDA_ERROR_OUT_OF_MEMORY;
		rc = sim_map_foreign(&memory, size ? size : 1,
				     module->device < 0 ? 0 : module->device);
		if (rc != CUDA_SUCCESS) {
			free(global);
			return rc;
		}
		*global = (struct module_global){(CUdeviceptr)memory, size, NULL};
		memcpy(global->name, name, length);
		pthread_mutex_lock(&sim_lock);
		global->next = module->globals;
		module->globals = global;
		pthread_mutex_unlock(&sim_lock);
	}
	if (address)
		*address = global->address;
	if (bytes)
		*bytes = global->bytes;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuModuleGetGlobal(CUdeviceptr *address, size_t *bytes, CUmodule handle,
				      const char *name)
{
	return untraced_module_global(address, bytes, handle, name);
}

static struct sim_function *live_function(CUfunction handle)
{
	struct sim_function *function = (struct sim_function *)handle;
	if (!function || function->magic != FUNCTION_MAGIC || !function->module->live)
		return NULL;
	return function;
}

/* sim_check_init, then the function (or kernel) behind handle, whose
 * module is loaded. */
static CUresult function_of(CUfunction handle, struct sim_function **out)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	*out = live_function(handle);
	return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* Kernels never run: they use no registers, local or static shared memory. */
SIM_EXPORT CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attribute,
				       CUfunction handle)
{
	struct sim_function *function;
	CUresult rc = function_of(handle, &function);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!value)
		return CUDA_ERROR_INVALID_VALUE;
	int arch = (int)sim_device_arch(0); /* every device's */
	switch (attribute) {
	case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = SIM_THREADS_PER_BLOCK; break;
	case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
	case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
	case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
	case CU_FUNC_ATTRIBUTE_NUM_REGS:
	case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = 0; break;
	case CU_FUNC_ATTRIBUTE_PTX_VERSION:
	case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *value = arch; break;
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
		*value = function->max_dynamic_shared;
		break;
	case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = -1; break;
	default: return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuFuncSetAttribute(CUfunction handle, CUfunction_attribute attribute, int value)
{
	struct sim_function *function;
	CUresult rc = function_of(handle, &function);
	if (rc != CUDA_SUCCESS)
		return rc;
	switch (attribute) {
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
		if (value < 0 || value > SIM_SHARED_PER_BLOCK_OPTIN)
			return CUDA_ERROR_INVALID_VALUE;
		function->max_dynamic_shared = value;
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
		return value >= -1 && value <= 100 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	default: return CUDA_ERROR_INVALID_VALUE;
	}
}

/* Cache and shared-memory bank preferences are hints a Hopper GPU may
 * ignore: checked, then dropped. */
SIM_EXPORT CUresult cuFuncSetCacheConfig(CUfunction handle, CUfunc_cache config)
{
	struct sim_function *function;
	CUresult rc = function_of(handle, &function);
	if (rc != CUDA_SUCCESS)
		return rc;
	return (unsigned)config <= CU_FUNC_CACHE_PREFER_EQUAL ? CUDA_SUCCESS
							      : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuFuncSetSharedMemConfig(CUfunction handle, CUsharedconfig config)
{
	struct sim_function *function;
	CUresult rc = function_of(handle, &function);
	if (rc != CUDA_SUCCESS)
		return rc;
	return (unsigned)config <= CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE
		       ? CUDA_SUCCESS
		       : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuFuncGetName(const char **name, CUfunction handle)
{
	struct sim_function *function;
	CUresult rc = function_of(handle, &function);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!name)
		return CUDA_ERROR_INVALID_VALUE;
	*name = function->name;
	return CUDA_SUCCESS;
}

/* A real GPU's limits on a launch: CUDA_ERROR_INVALID_VALUE beyond them. */
static bool configuration_fits(const struct sim_function *function, const unsigned grid[3],
			       const unsigned block[3], unsigned shared_bytes)
{
	static const unsigned grid_limit[3] = {0x7fffffffu, 65535, 65535};
	static const unsigned block_limit[3] = {1024, 1024, 64};
	uint64_t threads = 1;
	for (int i = 0; i < 3; i++) {
		if (!grid[i] || grid[i] > grid_limit[i] || !block[i] || block[i] > block_limit[i])
			return false;
		threads *= block[i];
	}
	return threads <= SIM_THREADS_PER_BLOCK &&
	       shared_bytes <= (unsigned)function->max_dynamic_shared;
}

CUresult sim_launch_check(CUfunction handle, const unsigned grid[3], const unsigned block[3],
			  unsigned shared_bytes)
{
	struct sim_function *function = live_function(handle);
	if (!function)
		return CUDA_ERROR_INVALID_HANDLE;
	return configuration_fits(function, grid, block, shared_bytes) ? CUDA_SUCCESS
								       : CUDA_ERROR_INVALID_VALUE;
}

static CUresult untraced_cuLaunchKernel(CUfunction handle, const unsigned grid[3],
					const unsigned block[3], unsigned shared_bytes,
					void **params, void **extra)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_function *function = live_function(handle);
	if (function && function->module->device >= 0 && function->module->device != device)
		return CUDA_ERROR_INVALID_HANDLE;
	if (params && extra)
		return CUDA_ERROR_INVALID_VALUE;
	return sim_launch_check(handle, grid, block, shared_bytes);
}

SIM_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int grid_x, unsigned int grid_y,
				   unsigned int grid_z, unsigned int block_x, unsigned int block_y,
				   unsigned int block_z, unsigned int shared_bytes, CUstream stream,
				   void **params, void **extra)
{
	(void)stream;
	const unsigned grid[3] = {grid_x, grid_y, grid_z}, block[3] = {block_x, block_y, block_z};
	return untraced_cuLaunchKernel(f, grid, block, shared_bytes, params, extra);
}

SIM_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int grid_x, unsigned int grid_y,
					unsigned int grid_z, unsigned int block_x,
					unsigned int block_y, unsigned int block_z,
					unsigned int shared_bytes, CUstream stream, void **params,
					void **extra)
{
	return cuLaunchKernel(f, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes,
			      stream, params, extra);
}

/* Occupancy: threads per multiprocessor, blocks per multiprocessor and
 * shared memory (each block also reserves 1 KiB) bound it; kernels use no
 * registers of their own. */
static int blocks_per_multiprocessor(int block_size, size_t shared_bytes)
{
	if (block_size <= 0 || block_size > SIM_THREADS_PER_BLOCK ||
	    shared_bytes > SIM_SHARED_PER_BLOCK_OPTIN)
		return 0;
	int warps = (block_size + 31) / 32;
	int blocks = SIM_THREADS_PER_MULTIPROCESSOR / 32 / warps;
	if (blocks > SIM_BLOCKS_PER_MULTIPROCESSOR)
		blocks = SIM_BLOCKS_PER_MULTIPROCESSOR;
	int by_shared = (int)(SIM_SHARED_PER_MULTIPROCESSOR / (shared_bytes + SIM_SHARED_RESERVED));
	return by_shared < blocks ? by_shared : blocks;
}

SIM_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
	int *blocks, CUfunction handle, int block_size, size_t shared_bytes, unsigned int flags)
{
	struct sim_function *function;
	CUresult rc = function_of(handle, &function);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!blocks || flags > CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)
		return CUDA_ERROR_INVALID_VALUE;
	*blocks = blocks_per_multiprocessor(block_size, shared_bytes);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction handle,
								int block_size, size_t shared_bytes)
{
	return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, handle, block_size,
								    shared_bytes, 0);
}

/* The block size with the most threads resident, the largest such when
 * several tie, as the real calculator picks. */
SIM_EXPORT CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *min_grid, int *block_size,
							      CUfunction handle,
							      CUoccupancyB2DSize shared_of_block,
							      size_t shared_bytes, int limit,
							      unsigned int flags)
{
	struct sim_function *function;
	CUresult rc = function_of(handle, &function);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!min_grid || !block_size || flags > CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)
		return CUDA_ERROR_INVALID_VALUE;
	if (limit <= 0 || limit > SIM_THREADS_PER_BLOCK)
		limit = SIM_THREADS_PER_BLOCK;
	int best_threads = 0, best_size = 0, best_blocks = 0;
	for (int size = (limit + 31) / 32 * 32; size > 0; size -= 32) {
		int tried = size > limit ? limit : size;
		size_t shared = shared_of_block ? shared_of_block(tried) : shared_bytes;
		int blocks = blocks_per_multiprocessor(tried, shared);
		if (blocks * tried > best_threads) {
			best_threads = blocks * tried;
			best_size = tried;
			best_blocks = blocks;
		}
	}
	*block_size = best_size;
	*min_grid = best_blocks * SIM_MULTIPROCESSORS;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block_size,
						     CUfunction handle,
						     CUoccupancyB2DSize shared_of_block,
						     size_t shared_bytes, int limit)
{
	return cuOccupancyMaxPotentialBlockSizeWithFlags(min_grid, block_size, handle,
							 shared_of_block, shared_bytes, limit, 0);
}

SIM_EXPORT CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *bytes, CUfunction handle,
							    int blocks, int block_size)
{
	struct sim_function *function;
	CUresult rc = function_of(handle, &function);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!bytes || blocks <= 0 || block_size <= 0 || block_size > SIM_THREADS_PER_BLOCK)
		return CUDA_ERROR_INVALID_VALUE;
	size_t share = SIM_SHARED_PER_MULTIPROCESSOR / (size_t)blocks;
	share = share > SIM_SHARED_RESERVED ? share - SIM_SHARED_RESERVED : 0;
	*bytes = share < SIM_SHARED_PER_BLOCK_OPTIN ? share : SIM_SHARED_PER_BLOCK_OPTIN;
	return CUDA_SUCCESS;
}

/* Libraries (CUDA 12): an image loaded once for every context, whose
 * kernels are the functions cuLaunchKernel also takes. */
static CUresult load_library(CUlibrary *out, const void *image, unsigned jit_count,
			     const void *jit_options, unsigned library_count,
			     const void *library_options)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if ((jit_count && !jit_options) || (library_count && !library_options))
		return CUDA_ERROR_INVALID_VALUE;
	return load_image((struct sim_module **)out, image, -1);
}

SIM_EXPORT CUresult cuLibraryLoadData(CUlibrary *out, const void *image, CUjit_option *jit_options,
				      void **jit_values, unsigned int jit_count,
				      CUlibraryOption *library_options, void **library_values,
				      unsigned int library_count)
{
	(void)jit_values, (void)library_values;
	return load_library(out, image, jit_count, jit_options, library_count, library_options);
}

SIM_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary *out, const char *path,
					  CUjit_option *jit_options, void **jit_values,
					  unsigned int jit_count, CUlibraryOption *library_options,
					  void **library_values, unsigned int library_count)
{
	(void)jit_values, (void)library_values;
	if (!path)
		return CUDA_ERROR_INVALID_VALUE;
	void *bytes = read_file(path);
	if (!bytes)
		return CUDA_ERROR_FILE_NOT_FOUND;
	CUresult rc =
		load_library(out, bytes, jit_count, jit_options, library_count, library_options);
	if (rc != CUDA_SUCCESS)
		free(bytes);
	return rc;
}

SIM_EXPORT CUresult cuLibraryUnload(CUlibrary library)
{
	return cuModuleUnload((CUmodule)library);
}

SIM_EXPORT CUresult cuLibraryGetModule(CUmodule *out, CUlibrary library)
{
	struct sim_module *module;
	CUresult rc = module_of((CUmodule)library, &module);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	*out = (CUmodule)module;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuLibraryGetKernel(CUkernel *out, CUlibrary library, const char *name)
{
	return cuModuleGetFunction((CUfunction *)out, (CUmodule)library, name);
}

SIM_EXPORT CUresult cuLibraryGetKernelCount(unsigned int *count, CUlibrary library)
{
	struct sim_module *module;
	CUresult rc = module_of((CUmodule)library, &module);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = (unsigned)module->image.name_count;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int count,
					      CUlibrary library)
{
	struct sim_module *module;
	CUresult rc = module_of((CUmodule)library, &module);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!kernels)
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned i = 0; i < count && i < module->image.name_count; i++) {
		rc = cuLibraryGetKernel(&kernels[i], library, module->image.names[i]);
		if (rc != CUDA_SUCCESS)
			return rc;
	}
	return CUDA_SUCCESS;
}

/* A kernel is its own function in every context. */
SIM_EXPORT CUresult cuKernelGetFunction(CUfunction *out, CUkernel kernel)
{
	struct sim_function *function;
	CUresult rc = function_of((CUfunction)kernel, &function);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	*out = (CUfunction)function;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuKernelGetLibrary(CUlibrary *out, CUkernel kernel)
{
	struct sim_function *function;
	CUresult rc = function_of((CUfunction)kernel, &function);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	*out = (CUlibrary)function->module;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuKernelGetName(const char **name, CUkernel kernel)
{
	return cuFuncGetName(name, (CUfunction)kernel);
}

SIM_EXPORT CUresult cuKernelGetAttribute(int *value, CUfunction_attribute attribute,
					 CUkernel kernel, CUdevice device)
{
	CUresult rc = sim_check_device(device);
	return rc == CUDA_SUCCESS ? cuFuncGetAttribute(value, attribute, (CUfunction)kernel) : rc;
}

SIM_EXPORT CUresult cuKernelSetAttribute(CUfunction_attribute attribute, int value, CUkernel kernel,
					 CUdevice device)
{
	CUresult rc = sim_check_device(device);
	return rc == CUDA_SUCCESS ? cuFuncSetAttribute((CUfunction)kernel, attribute, value) : rc;
}
