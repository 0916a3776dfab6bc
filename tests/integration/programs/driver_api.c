/* A program linked with -lcuda using the driver API directly. */
#include <cuda.h>
#include <stdio.h>

int main(void)
{
	CUdevice device;
	CUcontext context;
	CUdeviceptr a, pitched;
	size_t pitch;
	void *host;
	if (cuInit(0) || cuDeviceGet(&device, 0) || cuCtxCreate(&context, NULL, 0, device))
		return 1;
	if (cuMemAlloc(&a, 64 << 20) || cuMemAllocPitch(&pitched, &pitch, 100, 100, 4))
		return 1;
	if (cuMemHostAlloc(&host, 2 << 20, 0) || cuMemAllocHost(&host, 1 << 20))
		return 1;
	if (cuMemFree(a) || cuMemFreeHost(host))
		return 1;
	if (cuMemFree(a) != CUDA_ERROR_INVALID_VALUE) /* a double free fails */
		return 1;
	printf("driver_api: pitch=%zu\n", pitch);
	return 0;
}
