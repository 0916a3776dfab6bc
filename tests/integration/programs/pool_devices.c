/* A pool lives on the device it was created for: with device 0 current, a
 * pool is created on device 1 and 4 MiB allocated from it (on device 1's
 * memory), beside a plain 1 MiB cudaMalloc on device 0. Then, still with
 * device 0 current, 8 MiB from device 1's default pool (a pool first seen
 * at an allocation), 2 MiB from cudaMallocAsync on a stream of device 1
 * (its device's current pool: the default one again; 10 MiB, the peak of
 * device 1), and a request of 1 TiB from the default pool that fails on
 * device 1. Needs VRAMSIM_DEVICES=2. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#define MiB (1u << 20)

int main(void)
{
	struct cudaMemPoolProps props = {.allocType = cudaMemAllocationTypePinned,
					 .location = {.type = cudaMemLocationTypeDevice, .id = 1}};
	cudaMemPool_t pool;
	void *plain, *pooled;
	size_t free_before, free_after, total;
	if (cudaSetDevice(1) || cudaMemGetInfo(&free_before, &total) || cudaSetDevice(0) ||
	    cudaMalloc(&plain, MiB) || cudaMemPoolCreate(&pool, &props) ||
	    cudaMallocFromPoolAsync(&pooled, 4 * MiB, pool, 0) || cudaSetDevice(1) ||
	    cudaMemGetInfo(&free_after, &total) || cudaSetDevice(0))
		return 1;
	printf("device 1 gave the pool %zu MiB\n", (free_before - free_after) / MiB);
	if (cudaFreeAsync(pooled, 0) || cudaStreamSynchronize(0) || cudaMemPoolDestroy(pool))
		return 1;
	cudaMemPool_t other_default;
	cudaStream_t other_stream;
	void *from_default, *on_other_stream, *too_much;
	if (cudaSetDevice(1) || cudaStreamCreate(&other_stream) ||
	    cudaDeviceGetDefaultMemPool(&other_default, 1) || cudaSetDevice(0) ||
	    cudaMallocFromPoolAsync(&from_default, 8 * MiB, other_default, 0) ||
	    cudaMallocAsync(&on_other_stream, 2 * MiB, other_stream))
		return 2;
	if (cudaMallocFromPoolAsync(&too_much, 1ull << 40, other_default, 0) !=
	    cudaErrorMemoryAllocation)
		return 3;
	if (cudaFreeAsync(from_default, 0) || cudaFreeAsync(on_other_stream, other_stream) ||
	    cudaDeviceSynchronize() || cudaFree(plain))
		return 4;
	return 0;
}
