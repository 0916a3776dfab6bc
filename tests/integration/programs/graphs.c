/* Graph memory on the simulated device (2 MiB granularity): the first
 * graph allocates A (3 MiB, 4 reserved) and B (1 MiB, 2 reserved) and frees
 * A, the second frees B; the device keeps all 6 MiB reserved, and mapped
 * for graphs ("used"), after the frees, until the trim. One plain 1 MiB cudaMalloc is the only
 * tracked allocation. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#define MiB (1ull << 20)

static int failures;

static void expect(const char *what, unsigned long long got, unsigned long long want)
{
	if (got == want)
		return;
	fprintf(stderr, "%s: %llu, not %llu\n", what, got, want);
	failures++;
}

static unsigned long long figure(enum cudaGraphMemAttributeType attribute)
{
	unsigned long long value = ~0ull;
	cudaDeviceGetGraphMemAttribute(0, attribute, &value);
	return value;
}

static size_t free_bytes(void)
{
	size_t free_now = 0, total = 0;
	cudaMemGetInfo(&free_now, &total);
	return free_now;
}

static struct cudaMemAllocNodeParams params(size_t bytes)
{
	struct cudaMemAllocNodeParams p = {0};
	p.poolProps.allocType = cudaMemAllocationTypePinned;
	p.poolProps.location.type = cudaMemLocationTypeDevice;
	p.bytesize = bytes;
	return p;
}

int main(void)
{
	void *plain;
	if (cudaMalloc(&plain, MiB) != cudaSuccess)
		return 1;
	size_t before = free_bytes();
	cudaGraph_t first, second;
	cudaGraphNode_t a, b, free_a, free_b;
	struct cudaMemAllocNodeParams pa = params(3 * MiB), pb = params(MiB);
	cudaGraphExec_t run_first, run_second;
	if (cudaGraphCreate(&first, 0) || cudaGraphCreate(&second, 0) ||
	    cudaGraphAddMemAllocNode(&a, first, NULL, 0, &pa) ||
	    cudaGraphAddMemAllocNode(&b, first, &a, 1, &pb) ||
	    cudaGraphAddMemFreeNode(&free_a, first, &b, 1, pa.dptr) ||
	    cudaGraphAddMemFreeNode(&free_b, second, NULL, 0, pb.dptr) ||
	    cudaGraphInstantiate(&run_first, first, 0) ||
	    cudaGraphInstantiate(&run_second, second, 0))
		return 1;
	expect("nothing before a launch", before - free_bytes(), 0);
	if (cudaGraphLaunch(run_first, 0))
		return 1;
	expect("used after the first", figure(cudaGraphMemAttrUsedMemCurrent), 6 * MiB);
	expect("reserved after the first", figure(cudaGraphMemAttrReservedMemCurrent), 6 * MiB);
	expect("device after the first", before - free_bytes(), 6 * MiB);
	if (cudaGraphLaunch(run_second, 0) || cudaDeviceGraphMemTrim(0))
		return 1;
	expect("used high", figure(cudaGraphMemAttrUsedMemHigh), 6 * MiB);
	expect("used after the trim", figure(cudaGraphMemAttrUsedMemCurrent), 0);
	expect("reserved after the trim", figure(cudaGraphMemAttrReservedMemCurrent), 0);
	expect("device after the trim", before - free_bytes(), 0);
	if (cudaGraphExecDestroy(run_first) || cudaGraphExecDestroy(run_second) ||
	    cudaGraphDestroy(first) || cudaGraphDestroy(second) || cudaFree(plain))
		return 1;
	return failures;
}
