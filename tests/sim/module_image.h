/* The images cuModuleLoadData takes: cubins, PTX and fat binaries. */
#pragma once

#include <cuda.h>
#include <stdbool.h>
#include <stddef.h>

struct sim_image {
	size_t bytes;     /* the image's size, as CUPTI reports it */
	bool names_known; /* false when every entry is compressed */
	char **names;     /* its kernels' (mangled) names */
	size_t name_count;
	/* Its __device__ and __constant__ variables, with their sizes. */
	char **globals;
	size_t *global_bytes, global_count;
};

/* Checks an image as the real driver does for a device of architecture
 * device_arch (90 for compute capability 9.0): CUDA_ERROR_INVALID_IMAGE,
 * CUDA_ERROR_INVALID_PTX or CUDA_ERROR_NO_BINARY_FOR_GPU when it would not
 * load, else CUDA_SUCCESS with its kernels' names. */
CUresult sim_image_read(const void *bytes, unsigned device_arch, struct sim_image *image);
bool sim_image_has(const struct sim_image *image, const char *name);
/* Whether the image defines the variable name, and its size. */
bool sim_image_global(const struct sim_image *image, const char *name, size_t *bytes);
void sim_image_free(struct sim_image *image);
