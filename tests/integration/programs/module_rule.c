/* Allocations made inside a library named like NCCL, and beside it. */
#include <cuda_runtime_api.h>
#include <stdio.h>

int ncclstub_allocate(void **buffer, size_t bytes);

int main(void)
{
	void *communication, *mine;
	if (ncclstub_allocate(&communication, 8 << 20) || cudaMalloc(&mine, 2 << 20))
		return 1;
	puts("module_rule: ok");
	return 0;
}
