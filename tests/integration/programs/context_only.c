/* Uses CUDA without allocating: cuInit, a context on device 0 made
 * current, a module loaded from a small cubin, and an early exit. The
 * context alone holds device memory. */
#include <cuda.h>

#include "stand_in_cubin.h"

int main(void)
{
	static unsigned char cubin[STAND_IN_CUBIN_BYTES];
	stand_in_cubin(cubin, 190);
	CUdevice device;
	CUcontext context;
	CUmodule module;
	if (cuInit(0) || cuDeviceGet(&device, 0) || cuCtxCreate(&context, NULL, 0, device) ||
	    cuModuleLoadData(&module, cubin))
		return 1;
	return 0;
}
