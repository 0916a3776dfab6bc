/* A library whose constructor allocates before main runs. */
#include <cuda_runtime_api.h>

void *ctor_buffer;

__attribute__((constructor)) static void allocate_early(void)
{
	cudaMalloc(&ctor_buffer, 16 << 20);
}
