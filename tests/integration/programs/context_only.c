/* Uses CUDA without allocating: cuInit, a context on device 0 made
 * current, a module loaded from a small cubin, and an early exit. The
 * context alone holds device memory.
 * With "primary": device 0's primary context retained three times (one
 * context, shared) and released three times (its end), then retained
 * again (a second one): two contexts made in all. */
#include <cuda.h>
#include <string.h>

#include "stand_in_cubin.h"

static int primary(void)
{
	CUcontext context;
	for (int i = 0; i < 3; i++)
		if (cuDevicePrimaryCtxRetain(&context, 0))
			return 1;
	for (int i = 0; i < 3; i++)
		if (cuDevicePrimaryCtxRelease(0))
			return 1;
	return cuDevicePrimaryCtxRetain(&context, 0) != CUDA_SUCCESS;
}

int main(int argc, char **argv)
{
	static unsigned char cubin[STAND_IN_CUBIN_BYTES];
	stand_in_cubin(cubin, 190);
	CUdevice device;
	CUcontext context;
	CUmodule module;
	if (cuInit(0))
		return 1;
	if (argc > 1 && strcmp(argv[1], "primary") == 0)
		return primary();
	if (cuDeviceGet(&device, 0) || cuCtxCreate(&context, NULL, 0, device) ||
	    cuModuleLoadData(&module, cubin))
		return 1;
	return 0;
}
