/* Stream-ordered pools on the simulated device, which reserves in 2 MiB
 * units: the default pool grows to 6 MiB and, its allocation freed but no
 * synchronize made, still holds it all (release threshold 0 applies at
 * the next synchronize); a created pool with an 8 MiB threshold keeps
 * 6 MiB after a free, is trimmed to what is in use (2 MiB), and is
 * destroyed with one allocation still out. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#define MiB (1u << 20)

static int failed(const char *what, cudaError_t error)
{
	if (error == cudaSuccess)
		return 0;
	fprintf(stderr, "%s: %s\n", what, cudaGetErrorName(error));
	return 1;
}

int main(void)
{
	void *a, *b, *c;
	if (failed("default pool", cudaMallocAsync(&c, 5 * MiB, 0)) ||
	    failed("free", cudaFreeAsync(c, 0)))
		return 1;
	struct cudaMemPoolProps props = {.allocType = cudaMemAllocationTypePinned,
					 .location = {.type = cudaMemLocationTypeDevice, .id = 0}};
	cudaMemPool_t pool;
	unsigned long long threshold = 8 * MiB;
	if (failed("create", cudaMemPoolCreate(&pool, &props)) ||
	    failed("threshold",
		   cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold)) ||
	    failed("set", cudaDeviceSetMemPool(0, pool)))
		return 1;
	if (failed("current pool", cudaMallocAsync(&a, 3 * MiB, 0)) ||
	    failed("from pool", cudaMallocFromPoolAsync(&b, 1, pool, 0)) ||
	    failed("free", cudaFreeAsync(a, 0)) || failed("trim", cudaMemPoolTrimTo(pool, 0)) ||
	    failed("destroy", cudaMemPoolDestroy(pool)) || failed("free", cudaFreeAsync(b, 0)))
		return 1;
	return 0;
}
