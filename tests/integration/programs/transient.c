/* A peak that stands for an instant: 100 MiB + 3 bytes held, 1 GiB
 * allocated and freed at once, then 1 MiB kept; a dump in between. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#define MiB (1ull << 20)

int main(void)
{
	void *held, *brief, *kept;
	int (*dump)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "vramtrace_dump");
	if (cudaMalloc(&held, 100 * MiB + 3) || cudaMalloc(&brief, 1024 * MiB) || cudaFree(brief))
		return 1;
	if (!dump || dump(NULL) != 0)
		return 2;
	return cudaMalloc(&kept, MiB) == cudaSuccess ? 0 : 3;
}
