/* Two allocations from 40 frames deep: first through the driver API, then
 * through the runtime, whose path holds more of vramtrace's own frames. A
 * walk sized by the first path must still keep as many of the program's
 * frames on the second. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>

static volatile int depth_sink;

__attribute__((noinline)) static int allocate(int through_runtime)
{
	if (through_runtime) {
		void *p;
		return cudaMalloc(&p, 16 << 20) != cudaSuccess;
	}
	CUdeviceptr d;
	return cuMemAlloc(&d, 32 << 20) != CUDA_SUCCESS;
}

__attribute__((noinline)) static int descend(int levels, int through_runtime)
{
	int failed = levels ? descend(levels - 1, through_runtime) : allocate(through_runtime);
	depth_sink++; /* no tail call: every level keeps its frame */
	return failed;
}

int main(void)
{
	if (cudaFree(NULL) != cudaSuccess) /* the primary context, current */
		return 1;
	if (descend(40, 0) || descend(40, 1))
		return 1;
	printf("deep_stacks: done\n");
	return 0;
}
