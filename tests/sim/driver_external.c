/* Stand-in driver: external memory (Vulkan, OpenGL, other processes' file
 * descriptors). Only opaque file descriptors are simulated: importing one
 * takes ownership of it, as the real driver does, and a mapped buffer is
 * a stand-in of its size, charged to the API that allocated the memory,
 * not to this device, and ended by cuMemFree. */
#include <unistd.h>

#include "sim.h"

struct sim_external {
	int fd;
	int device;
	unsigned long long size;
};

SIM_EXPORT CUresult cuImportExternalMemory(CUexternalMemory *out,
					   const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *desc)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out || !desc || desc->size == 0 || desc->flags & ~CUDA_EXTERNAL_MEMORY_DEDICATED)
		return CUDA_ERROR_INVALID_VALUE;
	if (desc->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (desc->handle.fd < 0)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_external *external = malloc(sizeof(*external));
	if (!external)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*external = (struct sim_external){desc->handle.fd, device, desc->size};
	*out = (CUexternalMemory)external;
	return CUDA_SUCCESS;
}

static CUresult
untraced_cuExternalMemoryGetMappedBuffer(CUdeviceptr *dptr, CUexternalMemory handle,
					 const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *desc)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	const struct sim_external *external = (const struct sim_external *)handle;
	if (!dptr || !external || !desc || desc->flags != 0 || desc->size == 0 ||
	    desc->offset > external->size || desc->size > external->size - desc->offset)
		return CUDA_ERROR_INVALID_VALUE;
	void *at;
	rc = sim_map_foreign(&at, desc->size, external->device);
	if (rc == CUDA_SUCCESS)
		*dptr = (CUdeviceptr)at;
	return rc;
}

SIM_EXPORT CUresult cuExternalMemoryGetMappedBuffer(CUdeviceptr *dptr, CUexternalMemory handle,
						    const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *desc)
{
	cuExternalMemoryGetMappedBuffer_params params = {dptr, handle, desc};
	return SIM_TRACED(cuExternalMemoryGetMappedBuffer, &params,
			  untraced_cuExternalMemoryGetMappedBuffer(dptr, handle, desc));
}

/* Buffers mapped from it stay until freed, as on the real driver. */
SIM_EXPORT CUresult cuDestroyExternalMemory(CUexternalMemory handle)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_external *external = (struct sim_external *)handle;
	if (!external)
		return CUDA_ERROR_INVALID_HANDLE;
	close(external->fd);
	free(external);
	return CUDA_SUCCESS;
}

/* The array takes what the simulated layout says it needs, which must lie
 * inside the memory from offset. */
static CUresult untraced_cuExternalMemoryGetMappedMipmappedArray(
	CUmipmappedArray *array, CUexternalMemory handle,
	const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *desc)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	const struct sim_external *external = (const struct sim_external *)handle;
	if (!array || !external || !desc || desc->offset > external->size)
		return CUDA_ERROR_INVALID_VALUE;
	rc = sim_array_create((void **)array, &desc->arrayDesc, desc->numLevels, true, false);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (sim_array_bytes(*array) > external->size - desc->offset) {
		untraced_cuMipmappedArrayDestroy(*array);
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuExternalMemoryGetMappedMipmappedArray(CUmipmappedArray *array, CUexternalMemory handle,
					const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *desc)
{
	cuExternalMemoryGetMappedMipmappedArray_params params = {array, handle, desc};
	return SIM_TRACED(cuExternalMemoryGetMappedMipmappedArray, &params,
			  untraced_cuExternalMemoryGetMappedMipmappedArray(array, handle, desc));
}
