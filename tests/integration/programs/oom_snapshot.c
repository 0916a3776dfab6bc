/* Tagged memory, then an allocation that cannot fit: the report must say
 * what was live at that moment, by tag and by stack, and what leaked. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "vramtrace.h"

#define GiB (1ull << 30)

int main(void)
{
	void *a, *b, *c, *huge;
	vramtrace_push("weights");
	cudaMalloc(&a, 3 * GiB);
	vramtrace_pop();
	vramtrace_push("kv_cache");
	cudaMalloc(&b, 1 * GiB);
	cudaMalloc(&c, 1 * GiB);
	cudaFree(c);
	vramtrace_pop();
	vramtrace_push("activations");
	cudaError_t rc = cudaMalloc(&huge, 100 * GiB);
	vramtrace_pop();
	printf("oom_snapshot: rc=%d\n", (int)rc);
	return rc == cudaErrorMemoryAllocation ? 0 : 1;
}
