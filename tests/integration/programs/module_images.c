/* The simulated driver's loader and launcher against the images nvcc
 * writes (argv: a default fat binary, an sm_90 cubin, an sm_75 cubin, PTX,
 * and a fat binary with sm_75 code only): what loads, what is refused and
 * with which code, kernels by mangled name, a real GPU's launch checks and
 * the occupancy an H100 gives. Exits 0 when every figure is as expected,
 * else prints the first that is not. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stand_in_cubin.h"

static int failures;

static void expect(const char *what, long got, long want)
{
	if (got != want) {
		printf("%s: got %ld, want %ld\n", what, got, want);
		failures++;
	}
}

static char *read_file(const char *path)
{
	FILE *file = fopen(path, "rb");
	if (!file)
		return NULL;
	fseek(file, 0, SEEK_END);
	long length = ftell(file);
	rewind(file);
	char *bytes = calloc(1, (size_t)length + 1); /* PTX is text */
	if (bytes && fread(bytes, 1, (size_t)length, file) != (size_t)length) {
		free(bytes);
		bytes = NULL;
	}
	fclose(file);
	return bytes;
}

/* A loaded image stays with its module, as CUPTI may read it. */
static CUresult load(const char *path, CUmodule *module)
{
	char *image = read_file(path);
	if (!image)
		return CUDA_ERROR_FILE_NOT_FOUND;
	CUresult rc = cuModuleLoadData(module, image);
	if (rc != CUDA_SUCCESS)
		free(image);
	return rc;
}

static CUresult launch(CUfunction f, unsigned grid_y, unsigned block_x, unsigned block_z,
		       unsigned shared)
{
	CUdeviceptr x = 0;
	int n = 0;
	void *args[] = {&x, &n};
	return cuLaunchKernel(f, 1, grid_y, 1, block_x, 1, block_z, shared, NULL, args, NULL);
}

static void launches(CUfunction f)
{
	expect("launch 1024 threads", launch(f, 1, 1024, 1, 0), CUDA_SUCCESS);
	expect("launch 1025 threads", launch(f, 1, 1025, 1, 0), CUDA_ERROR_INVALID_VALUE);
	expect("launch 512 x 1 x 4 threads", launch(f, 1, 512, 4, 0), CUDA_ERROR_INVALID_VALUE);
	expect("launch 65536 blocks in y", launch(f, 65536, 32, 1, 0), CUDA_ERROR_INVALID_VALUE);
	expect("launch with 48 KiB of shared memory", launch(f, 1, 32, 1, 48 << 10), CUDA_SUCCESS);
	expect("launch with 48 KiB + 1", launch(f, 1, 32, 1, (48 << 10) + 1),
	       CUDA_ERROR_INVALID_VALUE);
	expect("opt in to 100 KB",
	       cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100000),
	       CUDA_SUCCESS);
	expect("launch with 100 KB", launch(f, 1, 32, 1, 100000), CUDA_SUCCESS);
	expect("opt in beyond 227 KiB",
	       cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 232449),
	       CUDA_ERROR_INVALID_VALUE);
	expect("launch a null function", launch(NULL, 1, 32, 1, 0), CUDA_ERROR_INVALID_HANDLE);
}

static void occupancy(CUfunction f)
{
	int blocks = -1, grid = -1, size = -1;
	cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 256, 0);
	expect("blocks of 256 per SM", blocks, 8);
	cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 32, 0);
	expect("blocks of 32 per SM", blocks, 32);
	cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 96, 100 << 10);
	expect("blocks with 100 KiB of shared memory per SM", blocks, 2);
	cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 1025, 0);
	expect("blocks of 1025 per SM", blocks, 0);
	expect("potential block size",
	       cuOccupancyMaxPotentialBlockSize(&grid, &size, f, NULL, 0, 0), CUDA_SUCCESS);
	expect("block size", size, 1024);
	expect("minimum grid", grid, 2 * 132);
}

static void fat_binary(const char *path)
{
	CUmodule module;
	CUfunction add_one, scale, missing;
	expect("load a fat binary", load(path, &module), CUDA_SUCCESS);
	expect("add_one", cuModuleGetFunction(&add_one, module, "add_one"), CUDA_SUCCESS);
	expect("scale, mangled", cuModuleGetFunction(&scale, module, "_Z5scalePffi"), CUDA_SUCCESS);
	expect("scale, unmangled", cuModuleGetFunction(&missing, module, "scale"),
	       CUDA_ERROR_NOT_FOUND);
	CUfunction again;
	cuModuleGetFunction(&again, module, "add_one");
	expect("the same handle twice", again == add_one, 1);
	const char *name = NULL;
	cuFuncGetName(&name, scale);
	expect("its name", name && strcmp(name, "_Z5scalePffi") == 0, 1);
	launches(add_one);
	occupancy(scale);
	expect("unload", cuModuleUnload(module), CUDA_SUCCESS);
	expect("launch after unload", launch(scale, 1, 32, 1, 0), CUDA_ERROR_INVALID_HANDLE);
	expect("unload twice", cuModuleUnload(module), CUDA_ERROR_INVALID_HANDLE);
	expect("load the file by path", cuModuleLoad(&module, path), CUDA_SUCCESS);
}

/* A library is loaded for every context; its kernels launch as functions. */
static void library(const char *path)
{
	char *image = read_file(path);
	CUlibrary library;
	expect("load a library", cuLibraryLoadData(&library, image, NULL, NULL, 0, NULL, NULL, 0),
	       CUDA_SUCCESS);
	unsigned count = 0;
	cuLibraryGetKernelCount(&count, library);
	expect("its kernels", count, 2);
	CUkernel kernels[2] = {NULL, NULL}, add_one;
	expect("enumerated", cuLibraryEnumerateKernels(kernels, 2, library), CUDA_SUCCESS);
	expect("add_one", cuLibraryGetKernel(&add_one, library, "add_one"), CUDA_SUCCESS);
	expect("among them", add_one == kernels[0] || add_one == kernels[1], 1);
	CUfunction function;
	expect("as a function", cuKernelGetFunction(&function, add_one), CUDA_SUCCESS);
	expect("launched", launch(function, 1, 256, 1, 0), CUDA_SUCCESS);
	expect("unload", cuLibraryUnload(library), CUDA_SUCCESS);
	expect("its kernel after unload", cuKernelGetFunction(&function, add_one),
	       CUDA_ERROR_INVALID_HANDLE);
}

static void loads_with_add_one(const char *what, const char *path)
{
	CUmodule module;
	CUfunction add_one;
	expect(what, load(path, &module), CUDA_SUCCESS);
	expect(what, cuModuleGetFunction(&add_one, module, "add_one"), CUDA_SUCCESS);
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: module_images FATBIN SM90_CUBIN SM75_CUBIN PTX "
				"SM75_ONLY_FATBIN\n");
		return 2;
	}
	CUdevice device;
	CUcontext context;
	CUmodule module;
	if (cuInit(0) || cuDeviceGet(&device, 0) || cuDevicePrimaryCtxRetain(&context, device) ||
	    cuCtxSetCurrent(context))
		return 1;
	fat_binary(argv[1]);
	library(argv[1]);
	loads_with_add_one("an sm_90 cubin", argv[2]);
	expect("an sm_75 cubin", load(argv[3], &module), CUDA_ERROR_NO_BINARY_FOR_GPU);
	loads_with_add_one("PTX", argv[4]);
	expect("a fat binary with sm_75 code only", load(argv[5], &module),
	       CUDA_ERROR_NO_BINARY_FOR_GPU);
	expect("text that is not PTX", cuModuleLoadData(&module, "hello"),
	       CUDA_ERROR_INVALID_IMAGE);
	expect("a host ELF object", load("/proc/self/exe", &module), CUDA_ERROR_INVALID_IMAGE);
	static unsigned char stand_in[STAND_IN_CUBIN_BYTES];
	stand_in_cubin(stand_in, 0);
	CUfunction none;
	expect("a machine-less ELF stand-in", cuModuleLoadData(&module, stand_in), CUDA_SUCCESS);
	expect("with no kernels", cuModuleGetFunction(&none, module, "add_one"),
	       CUDA_ERROR_NOT_FOUND);
	expect("a missing file", cuModuleLoad(&module, "/nonexistent.cubin"),
	       CUDA_ERROR_FILE_NOT_FOUND);
	if (failures == 0)
		puts("module_images: ok");
	return failures ? 1 : 0;
}
