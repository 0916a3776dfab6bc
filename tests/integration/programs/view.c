/* Holds memory long enough for the NVML sampler to see it: 100 MiB + 3
 * bytes and 1 MiB, both rounded up by the device's 2 MiB granularity. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
	void *a, *b;
	if (cudaMalloc(&a, (100 << 20) + 3) != cudaSuccess ||
	    cudaMalloc(&b, 1 << 20) != cudaSuccess)
		return 1;
	struct timespec pause = {0, 60 * 1000 * 1000};
	nanosleep(&pause, NULL);
	puts("view: ok");
	return 0;
}
