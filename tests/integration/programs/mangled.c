/* A C program, without libstdc++, whose allocating function carries a C++
 * name (as CUDA C++ code called from C does): load_weights(). */
#include <cuda_runtime_api.h>

void load_weights(void) __asm__("_Z12load_weightsv");

__attribute__((noinline)) void load_weights(void)
{
	void *weights;
	cudaMalloc(&weights, 1 << 20);
}

int main(void)
{
	load_weights();
	return 0;
}
