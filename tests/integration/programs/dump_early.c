/* A dump at once after the first allocation, before the device view's
 * sampler had a turn: the dump takes its own reading. */
#include <cuda_runtime_api.h>

#include "vramtrace.h"

int main(void)
{
	void *p = NULL;
	if (cudaMalloc(&p, 32 << 20) != cudaSuccess)
		return 1;
	return vramtrace_dump(NULL) == 0 ? 0 : 2;
}
