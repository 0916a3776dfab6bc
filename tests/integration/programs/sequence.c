/* A known sequence: peak 600 MiB of device memory after D, 350 MiB live
 * at exit; one of each kind; cudaFree(NULL), which is not a free. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#define MiB (1024ull * 1024ull)

static int expect(cudaError_t rc, const char *what)
{
	if (rc != cudaSuccess) {
		fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(rc));
		return 1;
	}
	return 0;
}

int main(void)
{
	void *a, *b, *c, *d, *managed, *pitched, *async, *pinned, *portable;
	size_t pitch;
	int failed = 0;
	failed |= expect(cudaFree(NULL), "cudaFree(NULL)");
	failed |= expect(cudaMalloc(&a, 100 * MiB), "a");
	failed |= expect(cudaMalloc(&b, 200 * MiB), "b");
	failed |= expect(cudaFree(a), "free a");
	failed |= expect(cudaMalloc(&c, 300 * MiB), "c");
	failed |= expect(cudaMalloc(&d, 100 * MiB), "d"); /* peak: b + c + d = 600 MiB */
	failed |= expect(cudaFree(b), "free b");
	failed |= expect(cudaFree(d), "free d");
	failed |= expect(cudaMalloc(&d, 50 * MiB), "d again");
	/* 1000 bytes wide pads to 1024: 1024 * 10 bytes. */
	failed |= expect(cudaMallocPitch(&pitched, &pitch, 1000, 10), "pitch");
	failed |= expect(cudaMallocManaged(&managed, 8 * MiB, cudaMemAttachGlobal), "managed");
	failed |= expect(cudaMallocAsync(&async, 4 * MiB, 0), "async");
	failed |= expect(cudaFreeAsync(async, 0), "free async");
	failed |= expect(cudaFree(pitched), "free pitched");
	failed |= expect(cudaFree(managed), "free managed");
	failed |= expect(cudaMallocHost(&pinned, 16 * MiB), "pinned");
	failed |= expect(cudaHostAlloc(&portable, 1 * MiB, cudaHostAllocPortable), "portable");
	failed |= expect(cudaFreeHost(portable), "free portable");
	failed |= expect(cudaFree(NULL), "cudaFree(NULL) again");
	printf("sequence: pitch=%zu\n", pitch);
	return failed; /* c, d (350 MiB) and pinned (16 MiB) stay live */
}
