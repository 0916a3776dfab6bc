/* An allocation past capacity: the program must see
 * cudaErrorMemoryAllocation, and live bytes must not change. */
#include <cuda_runtime_api.h>
#include <stdio.h>

int main(void)
{
	void *held, *huge = (void *)0x1;
	if (cudaMalloc(&held, 1ull << 30) != cudaSuccess)
		return 1;
	cudaError_t rc = cudaMalloc(&huge, 100ull << 30);
	printf("oom: rc=%d %s huge=%p\n", (int)rc, cudaGetErrorString(rc), huge);
	if (cudaGetLastError() != cudaErrorMemoryAllocation)
		return 1;
	return rc == cudaErrorMemoryAllocation ? 0 : 1;
}
