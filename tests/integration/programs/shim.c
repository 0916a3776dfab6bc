/* A library that exports the driver's name cuMemAlloc_v2 and is not the
 * driver: a shim, a stub, another build. It always fails, recognisably. */
#include <cuda.h>

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes)
{
	(void)bytes;
	*pointer = 0;
	return CUDA_ERROR_UNKNOWN;
}
