/* Frees CUDA refuses: each memory handed to a free call of another family
 * (an array to cudaFree, device memory to cudaFreeArray, registered pages
 * to cudaFreeHost, ...), and the primary context, which made them, given to
 * cuCtxDestroy. Every call fails and every allocation stays live:
 * 5 MiB of device memory, 7 MiB managed, a 1 MiB array, 3 MiB pinned and
 * 8 MiB registered. Prints each call's result. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MiB (1024 * 1024)

static void show(const char *call, int result)
{
	printf("%s = %d\n", call, result);
}

int main(void)
{
	void *device, *managed, *pinned, *pages = aligned_alloc(4096, 8 * MiB);
	cudaArray_t array;
	struct cudaChannelFormatDesc format =
		cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
	if (cudaMalloc(&device, 5 * MiB) || cudaMallocManaged(&managed, 7 * MiB, 1) ||
	    cudaMallocArray(&array, &format, 1024, 1024, 0) || cudaMallocHost(&pinned, 3 * MiB) ||
	    !pages || cudaHostRegister(pages, 8 * MiB, 0))
		return 1;
	show("cudaFree(array)", cudaFree((void *)array));
	show("cudaFreeArray(device)", cudaFreeArray((cudaArray_t)device));
	show("cudaFreeMipmappedArray(device)",
	     cudaFreeMipmappedArray((cudaMipmappedArray_t)managed));
	show("cuArrayDestroy(managed)", cuArrayDestroy((CUarray)managed));
	show("cudaFreeHost(pages)", cudaFreeHost(pages));
	show("cudaHostUnregister(pinned)", cudaHostUnregister(pinned));
	show("cudaFree(pinned)", cudaFree(pinned));
	show("cudaFreeHost(device)", cudaFreeHost(device));
	show("cuMemRelease(device)", cuMemRelease((CUmemGenericAllocationHandle)(uintptr_t)device));
	CUcontext primary = NULL;
	show("cuCtxDestroy(primary)", cuCtxGetCurrent(&primary) ? -1 : (int)cuCtxDestroy(primary));
	return 0;
}
