/* Stand-in driver: the JIT linker (cuLinkCreate ... cuLinkDestroy), as
 * NVRTC's and NVVM's users drive it. Each input is checked as
 * cuModuleLoadData would check it; no code is compiled, so the linked
 * image is the inputs' PTX, joined, which the simulated loader reads as
 * it reads any PTX (or the one machine-code input, when there is no PTX).
 * Libraries and object files resolve nothing a kernel that never runs
 * needs, and are only checked to be there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module_image.h"
#include "sim.h"

/* The ABI names, which cuda.h's macros would rename to the newest. */
#undef cuLinkCreate
#undef cuLinkAddData
#undef cuLinkAddFile

#define LINK_MAGIC 0x6c696e6bu /* "link" */

struct sim_link {
	uint32_t magic;
	char *ptx;          /* every PTX input, joined, NUL-terminated */
	size_t ptx_bytes;   /* without the NUL */
	void *machine_code; /* the first cubin or fat binary */
	size_t machine_bytes;
	bool completed;
};

/* What a JIT option hands back: empty logs, no time spent. */
static void jit_results(unsigned count, const CUjit_option *options, void **values)
{
	for (unsigned i = 0; options && values && i < count; i++) {
		if (options[i] == CU_JIT_WALL_TIME)
			memcpy(&values[i], &(float){0}, sizeof(float));
		bool log = options[i] == CU_JIT_INFO_LOG_BUFFER ||
			   options[i] == CU_JIT_ERROR_LOG_BUFFER;
		for (unsigned j = 0; log && j < count; j++)
			if (options[j] == options[i] + 1 && (uintptr_t)values[j] && values[i])
				*(char *)values[i] = '\0';
	}
}

SIM_EXPORT CUresult cuLinkCreate_v2(unsigned int count, CUjit_option *options, void **values,
				    CUlinkState *out)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	int device;
	if ((rc = sim_current_device(&device)) != CUDA_SUCCESS)
		return rc;
	if (!out || (count && (!options || !values)))
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_link *link = calloc(1, sizeof(*link));
	if (!link)
		return CUDA_ERROR_OUT_OF_MEMORY;
	link->magic = LINK_MAGIC;
	jit_results(count, options, values);
	*out = (CUlinkState)link;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuLinkCreate(unsigned int count, CUjit_option *options, void **values,
				 CUlinkState *out)
{
	return cuLinkCreate_v2(count, options, values, out);
}

static struct sim_link *link_of(CUlinkState state)
{
	struct sim_link *link = (struct sim_link *)state;
	return link && link->magic == LINK_MAGIC ? link : NULL;
}

static CUresult add_ptx(struct sim_link *link, const char *text, size_t bytes)
{
	size_t length = strnlen(text, bytes);
	char *joined = realloc(link->ptx, link->ptx_bytes + length + 2);
	if (!joined)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memcpy(joined + link->ptx_bytes, text, length);
	link->ptx_bytes += length;
	joined[link->ptx_bytes++] = '\n';
	joined[link->ptx_bytes] = '\0';
	link->ptx = joined;
	return CUDA_SUCCESS;
}

/* The input checked as the loader checks an image of its kind. */
static CUresult check_input(CUjitInputType type, const void *data, size_t bytes)
{
	if (type == CU_JIT_INPUT_LIBRARY || type == CU_JIT_INPUT_OBJECT)
		return CUDA_SUCCESS;
	char *copy = malloc(bytes + 1);
	if (!copy)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memcpy(copy, data, bytes);
	copy[bytes] = '\0'; /* PTX is read as text */
	struct sim_image image;
	CUresult rc = sim_image_read(copy, sim_device_arch(0), &image);
	if (rc == CUDA_SUCCESS)
		sim_image_free(&image);
	free(copy);
	return rc;
}

SIM_EXPORT CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data,
				     size_t bytes, const char *name, unsigned int count,
				     CUjit_option *options, void **values)
{
	(void)name;
	struct sim_link *link = link_of(state);
	if (!link || link->completed)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!data || !bytes || (count && (!options || !values)) ||
	    (unsigned)type >= CU_JIT_NUM_INPUT_TYPES || type == CU_JIT_INPUT_NVVM)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult rc = check_input(type, data, bytes);
	if (rc != CUDA_SUCCESS)
		return rc;
	jit_results(count, options, values);
	if (type == CU_JIT_INPUT_PTX)
		return add_ptx(link, data, bytes);
	if ((type == CU_JIT_INPUT_CUBIN || type == CU_JIT_INPUT_FATBINARY) && !link->machine_code) {
		if (!(link->machine_code = malloc(bytes)))
			return CUDA_ERROR_OUT_OF_MEMORY;
		memcpy(link->machine_code, data, bytes);
		link->machine_bytes = bytes;
	}
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t bytes,
				  const char *name, unsigned int count, CUjit_option *options,
				  void **values)
{
	return cuLinkAddData_v2(state, type, data, bytes, name, count, options, values);
}

SIM_EXPORT CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
				     unsigned int count, CUjit_option *options, void **values)
{
	if (!link_of(state))
		return CUDA_ERROR_INVALID_HANDLE;
	FILE *file = path ? fopen(path, "rb") : NULL;
	if (!file)
		return CUDA_ERROR_FILE_NOT_FOUND;
	char *bytes = NULL;
	size_t length = 0, got;
	char buffer[65536];
	while ((got = fread(buffer, 1, sizeof(buffer), file)) > 0) {
		char *grown = realloc(bytes, length + got);
		if (!grown)
			break;
		memcpy(grown + length, buffer, got);
		bytes = grown;
		length += got;
	}
	fclose(file);
	CUresult rc =
		bytes ? cuLinkAddData_v2(state, type, bytes, length, path, count, options, values)
		      : CUDA_ERROR_FILE_NOT_FOUND;
	free(bytes);
	return rc;
}

SIM_EXPORT CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
				  unsigned int count, CUjit_option *options, void **values)
{
	return cuLinkAddFile_v2(state, type, path, count, options, values);
}

/* The image stays the link state's until cuLinkDestroy. */
SIM_EXPORT CUresult cuLinkComplete(CUlinkState state, void **image, size_t *bytes)
{
	struct sim_link *link = link_of(state);
	if (!link)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!image || !bytes)
		return CUDA_ERROR_INVALID_VALUE;
	if (!link->ptx && !link->machine_code)
		return CUDA_ERROR_INVALID_IMAGE; /* nothing to link */
	link->completed = true;
	*image = link->ptx ? (void *)link->ptx : link->machine_code;
	*bytes = link->ptx ? link->ptx_bytes + 1 : link->machine_bytes;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuLinkDestroy(CUlinkState state)
{
	struct sim_link *link = link_of(state);
	if (!link)
		return CUDA_ERROR_INVALID_HANDLE;
	link->magic = 0;
	free(link->ptx);
	free(link->machine_code);
	free(link);
	return CUDA_SUCCESS;
}
