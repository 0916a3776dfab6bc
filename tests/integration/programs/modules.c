/* Contexts and modules, as CUPTI's resource domain reports them: the
 * runtime creates device 0's primary context, a 4,736-byte cubin (an ELF64
 * header whose 10 section headers of 64 bytes start at 4,096) is loaded and
 * unloaded there beside a 1 MiB allocation, and a context is created and
 * destroyed on device 1. */
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "stand_in_cubin.h"

int main(void)
{
	static unsigned char cubin[STAND_IN_CUBIN_BYTES];
	stand_in_cubin(cubin, 190);
	void *buffer;
	if (cudaMalloc(&buffer, 1 << 20) != cudaSuccess)
		return 1;
	CUmodule module;
	if (cuModuleLoadData(&module, cubin) || cuModuleUnload(module))
		return 1;
	CUcontext context;
	if (cuCtxCreate(&context, NULL, 0, 1) || cuCtxDestroy(context))
		return 1;
	return 0;
}
