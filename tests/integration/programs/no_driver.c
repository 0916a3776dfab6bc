/* Linked with the real libcudart and run with no driver: every call must
 * fail exactly as it does without vramtrace. */
#include <cuda_runtime_api.h>
#include <stdio.h>

int main(void)
{
	void *p = (void *)0x1;
	cudaError_t rc = cudaMalloc(&p, 1 << 20);
	printf("no_driver: rc=%d p=%p last=%d\n", (int)rc, p, (int)cudaGetLastError());
	return (int)rc;
}
