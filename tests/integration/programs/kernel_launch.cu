// Built by nvcc -cudart shared: fat-binary registration and a launch.
#include <cstdio>

__global__ void fill(float *x, float value)
{
	x[threadIdx.x] = value;
}

int main()
{
	float *x;
	cudaError_t error = cudaMalloc(&x, 32 << 20);
	if (error != cudaSuccess) {
		std::fprintf(stderr, "kernel_launch: cudaMalloc: %s\n", cudaGetErrorName(error));
		return 1;
	}
	fill<<<1, 32>>>(x, 1.0f);
	if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
		return 1;
	if (cudaFree(x) != cudaSuccess)
		return 1;
	std::puts("kernel_launch: ok");
	return 0;
}
