// 100,000 cudaMalloc/cudaFree pairs and 100,000 empty kernel launches,
// timed; run with and without vramtrace by run.sh.
#include <chrono>
#include <cstdio>

__global__ void empty() {}

int main()
{
	const int n = 100000;
	void *p;
	cudaFree(nullptr);
	auto start = std::chrono::steady_clock::now();
	for (int i = 0; i < n; i++) {
		if (cudaMalloc(&p, 4096) != cudaSuccess || cudaFree(p) != cudaSuccess)
			return 1;
	}
	auto middle = std::chrono::steady_clock::now();
	for (int i = 0; i < n; i++)
		empty<<<1, 1>>>();
	if (cudaDeviceSynchronize() != cudaSuccess)
		return 1;
	auto end = std::chrono::steady_clock::now();
	std::printf("alloc_free_ns %.1f\nlaunch_ns %.1f\n",
		    std::chrono::duration<double, std::nano>(middle - start).count() / n,
		    std::chrono::duration<double, std::nano>(end - middle).count() / n);
	return 0;
}
