/* A tag per request, or an NVTX range per operator with its sequence
 * number (PyTorch's "aten::mm, seq = N"): COUNT distinct names, one
 * allocation of 64 * (1 + i % 7) bytes under each, freed at once (the
 * simulated device, like a real one, gives each at least 2 MiB).
 * Usage: many_tags api|nvtx|names COUNT */
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vramtrace.h"

/* COUNT names pushed and popped with nothing allocated, then 4096 bytes
 * under one more. */
static int names_then_one(long count)
{
	char name[64];
	for (long i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "name-%ld", i);
		vramtrace_push(name);
		vramtrace_pop();
	}
	void *p;
	vramtrace_push("the last one");
	int failed = cudaMalloc(&p, 4096) != cudaSuccess;
	vramtrace_pop();
	printf("many_tags: %ld names\n", count);
	return failed;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int nvtx = strcmp(argv[1], "nvtx") == 0;
	long count = atol(argv[2]);
	if (strcmp(argv[1], "names") == 0)
		return names_then_one(count);
	for (long i = 0; i < count; i++) {
		char name[64];
		void *p;
		if (nvtx) {
			snprintf(name, sizeof(name), "aten::mm, seq = %ld", i);
			nvtxRangePushA(name);
		} else {
			snprintf(name, sizeof(name), "request-%ld", i);
			if (vramtrace_push(name) != 0)
				return 3;
		}
		if (cudaMalloc(&p, 64 * (size_t)(1 + i % 7)) != cudaSuccess)
			return 1;
		cudaFree(p);
		if (nvtx)
			nvtxRangePop();
		else
			vramtrace_pop();
	}
	printf("many_tags: %ld\n", count);
	return 0;
}
