/* What a context's end destroys, on two devices. Device 0, through the
 * runtime: 64 MiB device, 32 MiB pitched, 8 MiB managed and 1 MiB pinned
 * memory, a 256 KiB array (256 x 256 floats), 16 MiB stream-ordered and
 * one 2 MiB cuMemCreate handle; then cudaDeviceReset, which takes all but
 * the last two; then 4 MiB more.
 * Device 1, through the driver: a created context with 8 MiB, destroyed;
 * the primary context retained twice with 2 MiB in it, released twice (the
 * second release ends it). Live at exit: device 0 holds 16 + 2 + 4 MiB,
 * device 1 and the host nothing. A reset after main returned (in an atexit
 * handler, as the runtime's own teardown ends contexts) frees what the
 * program left only after it ended: the 4 MiB stay in the report. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define MiB (1ull << 20)

static int failed;

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "context_end: %s failed\n", what);
		failed = 1;
	}
}

static CUmemGenericAllocationHandle physical(size_t bytes)
{
	CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
				    .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
	CUmemGenericAllocationHandle handle = 0;
	expect(cuMemCreate(&handle, bytes, &prop, 0) == CUDA_SUCCESS, "cuMemCreate");
	return handle;
}

static void runtime_reset(void)
{
	void *device, *pitched, *managed, *pinned, *async, *after;
	size_t pitch;
	expect(cudaMalloc(&device, 64 * MiB) == cudaSuccess, "cudaMalloc");
	expect(cudaMallocPitch(&pitched, &pitch, 1024, 32 * 1024) == cudaSuccess && pitch == 1024,
	       "cudaMallocPitch");
	expect(cudaMallocManaged(&managed, 8 * MiB, cudaMemAttachGlobal) == cudaSuccess,
	       "cudaMallocManaged");
	expect(cudaMallocHost(&pinned, 1 * MiB) == cudaSuccess, "cudaMallocHost");
	struct cudaChannelFormatDesc format =
		cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
	cudaArray_t array;
	expect(cudaMallocArray(&array, &format, 256, 256, 0) == cudaSuccess, "cudaMallocArray");
	expect(cudaMallocAsync(&async, 16 * MiB, 0) == cudaSuccess, "cudaMallocAsync");
	physical(2 * MiB);
	expect(cudaDeviceReset() == cudaSuccess, "cudaDeviceReset");
	expect(cudaFree(device) == cudaErrorInvalidValue, "a reset's allocation is gone");
	expect(cudaMalloc(&after, 4 * MiB) == cudaSuccess, "cudaMalloc after the reset");
}

static void driver_contexts(void)
{
	CUcontext created, primary;
	CUdeviceptr in_created, in_primary;
	expect(cuCtxCreate(&created, NULL, 0, 1) == CUDA_SUCCESS, "cuCtxCreate");
	expect(cuMemAlloc(&in_created, 8 * MiB) == CUDA_SUCCESS, "cuMemAlloc in it");
	expect(cuCtxDestroy(created) == CUDA_SUCCESS, "cuCtxDestroy");
	expect(cuDevicePrimaryCtxRetain(&primary, 1) == CUDA_SUCCESS &&
		       cuDevicePrimaryCtxRetain(&primary, 1) == CUDA_SUCCESS,
	       "cuDevicePrimaryCtxRetain");
	expect(cuCtxSetCurrent(primary) == CUDA_SUCCESS, "cuCtxSetCurrent");
	expect(cuMemAlloc(&in_primary, 2 * MiB) == CUDA_SUCCESS, "cuMemAlloc in the primary");
	expect(cuDevicePrimaryCtxRelease(1) == CUDA_SUCCESS, "the first release");
	expect(cuMemFree(in_primary) == CUDA_SUCCESS && cuMemAlloc(&in_primary, 2 * MiB) == 0,
	       "the primary still works");
	expect(cuDevicePrimaryCtxRelease(1) == CUDA_SUCCESS, "the last release");
	expect(cuCtxSetCurrent(NULL) == CUDA_SUCCESS, "cuCtxSetCurrent(NULL)");
}

static void reset_at_exit(void)
{
	cudaDeviceReset();
}

int main(void)
{
	atexit(reset_at_exit);
	runtime_reset();
	driver_contexts();
	expect(cudaSetDevice(0) == cudaSuccess, "cudaSetDevice");
	printf("context_end: %s\n", failed ? "failed" : "ok");
	return failed;
}
