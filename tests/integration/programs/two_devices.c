/* 3 GiB on device 0 then 5 GiB on device 1, each freed from the other
 * device's context: frees find their device by address. */
#include <cuda_runtime_api.h>
#include <stdio.h>

int main(void)
{
	void *zero, *one;
	int count = 0;
	if (cudaGetDeviceCount(&count) != cudaSuccess || count != 2)
		return 1;
	if (cudaSetDevice(0) || cudaMalloc(&zero, 3ull << 30))
		return 1;
	if (cudaSetDevice(1) || cudaMalloc(&one, 5ull << 30))
		return 1;
	if (cudaFree(zero))
		return 1;
	if (cudaSetDevice(0) || cudaFree(one))
		return 1;
	if (cudaSetDevice(1) || cudaMalloc(&one, 1ull << 30))
		return 1;
	if (cudaSetDevice(2) != cudaErrorInvalidDevice)
		return 1;
	puts("two_devices: ok");
	return 0;
}
