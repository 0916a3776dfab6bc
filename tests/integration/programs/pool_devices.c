/* A pool lives on the device it was created for: with device 0 current, a
 * pool is created on device 1 and 4 MiB allocated from it (on device 1's
 * memory), beside a plain 1 MiB cudaMalloc on device 0. Needs
 * VRAMSIM_DEVICES=2. */
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
	if (cudaFreeAsync(pooled, 0) || cudaStreamSynchronize(0) || cudaMemPoolDestroy(pool) ||
	    cudaFree(plain))
		return 1;
	return 0;
}
