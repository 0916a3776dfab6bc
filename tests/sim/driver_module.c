/* Stand-in driver: modules. An image is a cubin, an ELF64 object, whose
 * size the driver reads from its header (the section header table ends
 * it); nothing of it is run. Loading and unloading are reported to CUPTI's
 * resource domain with the image, as the real driver does. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

struct sim_module {
	int device;
	CUpti_ModuleResourceData resource;
};

static uint32_t next_module_id = 1;

/* 0 for anything that is not an ELF64 header. */
static size_t image_bytes(const void *image)
{
	Elf64_Ehdr header;
	memcpy(&header, image, sizeof(header));
	if (memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64)
		return 0;
	size_t sections_end = header.e_shoff + (size_t)header.e_shnum * header.e_shentsize;
	return sections_end > sizeof(header) ? sections_end : sizeof(header);
}

SIM_EXPORT CUresult cuModuleLoadData(CUmodule *out, const void *image)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out || !image)
		return CUDA_ERROR_INVALID_VALUE;
	size_t bytes = image_bytes(image);
	if (!bytes)
		return CUDA_ERROR_INVALID_IMAGE;
	struct sim_module *module = calloc(1, sizeof(*module));
	if (!module)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&sim_lock);
	uint32_t id = next_module_id++;
	pthread_mutex_unlock(&sim_lock);
	module->device = device;
	module->resource = (CUpti_ModuleResourceData){id, bytes, image};
	sim_resource_event(CUPTI_CBID_RESOURCE_MODULE_LOADED, (CUcontext)sim_current_context(),
			   &module->resource);
	*out = (CUmodule)module;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuModuleUnload(CUmodule handle)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_module *module = (struct sim_module *)handle;
	if (!module)
		return CUDA_ERROR_INVALID_HANDLE;
	sim_resource_event(CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
			   (CUcontext)sim_current_context(), &module->resource);
	free(module);
	return CUDA_SUCCESS;
}
