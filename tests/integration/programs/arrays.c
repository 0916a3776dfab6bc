/* CUDA arrays on the simulated device. A real driver says how much memory
 * an array takes only for a deferred-mapping one, so vramtrace counts each
 * array's elements:
 *   cudaMallocArray float4 1000 x 600           16 x 1000 x 600      = 9600000
 *   cudaMalloc3DArray uchar1 100 x 50 x 10        1 x 100 x 50 x 10  =   50000
 *   cudaMallocMipmappedArray half2 256 x 256, 3 levels
 *             4 x (256 x 256 + 128 x 128 + 64 x 64) = 4 x 86016      =  344064
 *   cuArrayCreate 2 x u16 300 x 200               4 x 300 x 200      =  240000
 * 10234064 bytes at the peak, all freed; a bad channel description fails
 * in the runtime, before any driver call. The device itself takes what
 * its layout needs, each row padded to 512 bytes, rounded up to its 2 MiB
 * granularity: 16384 x 600 = 9830400 -> 10 MiB, 512 x 50 x 10 = 256000,
 * 1024 x 256 + 512 x 128 + 512 x 64 = 360448 and 1536 x 200 = 307200 ->
 * 2 MiB each, 16 MiB in all, which cudaMemGetInfo shows gone. A sparse
 * float array of 4096 x 4096 and a mipmapped one whose memory would be
 * mapped later hold no memory of their own: the device's free memory stays
 * as it was. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>

static int failed(const char *what, int error, int expected)
{
	if (error == expected)
		return 0;
	fprintf(stderr, "%s: %d\n", what, error);
	return 1;
}

int main(void)
{
	struct cudaChannelFormatDesc rgba_float = {32, 32, 32, 32, cudaChannelFormatKindFloat};
	struct cudaChannelFormatDesc byte_channel = {8, 0, 0, 0, cudaChannelFormatKindUnsigned};
	struct cudaChannelFormatDesc half_pair = {16, 16, 0, 0, cudaChannelFormatKindFloat};
	struct cudaChannelFormatDesc odd = {24, 0, 0, 0, cudaChannelFormatKindFloat};
	cudaArray_t flat, volume, refused, sparse;
	cudaMipmappedArray_t mipmapped, deferred;
	CUarray driver_array;
	CUDA_ARRAY_DESCRIPTOR desc = {.Width = 300,
				      .Height = 200,
				      .Format = CU_AD_FORMAT_UNSIGNED_INT16,
				      .NumChannels = 2};
	size_t free_at_start, free_before, free_after, total;
	if (failed("cudaMemGetInfo", cudaMemGetInfo(&free_at_start, &total), cudaSuccess) ||
	    failed("2D", cudaMallocArray(&flat, &rgba_float, 1000, 600, 0), cudaSuccess) ||
	    failed("3D",
		   cudaMalloc3DArray(&volume, &byte_channel, (struct cudaExtent){100, 50, 10}, 0),
		   cudaSuccess) ||
	    failed("mipmapped",
		   cudaMallocMipmappedArray(&mipmapped, &half_pair,
					    (struct cudaExtent){256, 256, 0}, 3, 0),
		   cudaSuccess) ||
	    failed("driver", cuArrayCreate(&driver_array, &desc), CUDA_SUCCESS) ||
	    failed("odd channels", cudaMallocArray(&refused, &odd, 16, 16, 0),
		   cudaErrorInvalidChannelDescriptor))
		return 1;
	cudaGetLastError();
	if (failed("cudaMemGetInfo", cudaMemGetInfo(&free_before, &total), cudaSuccess) ||
	    failed("arrays take the device's memory", free_at_start - free_before == 16ull << 20,
		   1) ||
	    failed("sparse", cudaMallocArray(&sparse, &rgba_float, 4096, 4096, cudaArraySparse),
		   cudaSuccess) ||
	    failed("deferred",
		   cudaMallocMipmappedArray(&deferred, &half_pair,
					    (struct cudaExtent){4096, 4096, 0}, 4,
					    cudaArrayDeferredMapping),
		   cudaSuccess) ||
	    failed("cudaMemGetInfo", cudaMemGetInfo(&free_after, &total), cudaSuccess) ||
	    failed("unbacked arrays hold no memory", free_after == free_before, 1))
		return 1;
	if (failed("free sparse", cudaFreeArray(sparse), cudaSuccess) ||
	    failed("free deferred", cudaFreeMipmappedArray(deferred), cudaSuccess) ||
	    failed("free 2D", cudaFreeArray(flat), cudaSuccess) ||
	    failed("free 3D", cudaFreeArray(volume), cudaSuccess) ||
	    failed("free mipmapped", cudaFreeMipmappedArray(mipmapped), cudaSuccess) ||
	    failed("free driver", cuArrayDestroy(driver_array), CUDA_SUCCESS) ||
	    failed("free NULL", cudaFreeArray(NULL), cudaSuccess))
		return 1;
	return 0;
}
