/* Holds memory long enough for the NVML sampler to see it: 100 MiB + 3
 * bytes and 1 MiB, both rounded up by the device's 2 MiB granularity.
 * With "own-nvml" it initializes NVML itself before its first CUDA call and
 * shuts it down between the two allocations, as a program that reads NVML
 * for itself does; it prints what nvmlShutdown returned. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	int (*shutdown)(void) = NULL;
	if (argc > 1 && strcmp(argv[1], "own-nvml") == 0) {
		void *nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW);
		int (*init)(void) = nvml ? (int (*)(void))dlsym(nvml, "nvmlInit_v2") : NULL;
		shutdown = nvml ? (int (*)(void))dlsym(nvml, "nvmlShutdown") : NULL;
		if (!init || !shutdown || init() != 0)
			return 1;
	}
	void *a, *b;
	if (cudaMalloc(&a, (100 << 20) + 3) != cudaSuccess)
		return 1;
	if (shutdown)
		printf("nvmlShutdown = %d\n", shutdown());
	if (cudaMalloc(&b, 1 << 20) != cudaSuccess)
		return 1;
	struct timespec pause = {0, 60 * 1000 * 1000};
	nanosleep(&pause, NULL);
	puts("view: ok");
	return 0;
}
