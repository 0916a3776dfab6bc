// Row 10 of the kit: COUNT cudaMalloc/cudaFree pairs, COUNT
// cudaMallocAsync/cudaFreeAsync pairs (the serving path) and COUNT empty
// kernel launches, each timed; row10_overhead.sh runs it without vramtrace,
// with the hooks and with CUPTI, and prints the paired medians.
#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void empty() {}

static double ns_since(std::chrono::steady_clock::time_point start, int n)
{
	return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
		       .count() /
	       n;
}

int main(int argc, char **argv)
{
	const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
	void *p;
	cudaStream_t stream;
	if (n <= 0 || cudaFree(nullptr) != cudaSuccess || cudaStreamCreate(&stream) != cudaSuccess)
		return 1;
	auto start = std::chrono::steady_clock::now();
	for (int i = 0; i < n; i++)
		if (cudaMalloc(&p, 4096) != cudaSuccess || cudaFree(p) != cudaSuccess)
			return 1;
	double alloc_free = ns_since(start, n);
	start = std::chrono::steady_clock::now();
	for (int i = 0; i < n; i++)
		if (cudaMallocAsync(&p, 4096, stream) != cudaSuccess ||
		    cudaFreeAsync(p, stream) != cudaSuccess)
			return 1;
	if (cudaStreamSynchronize(stream) != cudaSuccess)
		return 1;
	double async = ns_since(start, n);
	start = std::chrono::steady_clock::now();
	for (int i = 0; i < n; i++)
		empty<<<1, 1, 0, stream>>>();
	if (cudaStreamSynchronize(stream) != cudaSuccess)
		return 1;
	double launch = ns_since(start, n);
	std::printf("%.1f %.1f %.1f\n", alloc_free, async, launch);
	return 0;
}
