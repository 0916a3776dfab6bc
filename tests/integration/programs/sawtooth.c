/* Holds 256 MiB, then allocates and frees 1 GiB 300 times, 200 us apart,
 * then keeps 512 MiB more: peaks of 1.25 GiB, troughs of 256 MiB, and
 * 768 MiB live at exit. */
#include <cuda_runtime_api.h>
#include <time.h>

#define MiB (1ull << 20)

int main(void)
{
	void *base, *tooth, *kept;
	if (cudaMalloc(&base, 256 * MiB) != cudaSuccess)
		return 1;
	for (int i = 0; i < 300; i++) {
		if (cudaMalloc(&tooth, 1024 * MiB) != cudaSuccess || cudaFree(tooth) != cudaSuccess)
			return 2;
		struct timespec pause = {0, 200 * 1000};
		nanosleep(&pause, NULL);
	}
	return cudaMalloc(&kept, 512 * MiB) == cudaSuccess ? 0 : 3;
}
