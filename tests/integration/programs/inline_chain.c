/* Two levels of inlining, built with optimization: the allocation's
 * function inlined into a loader that is itself inlined into main. Every
 * caller must be named, each at the line of its call. Beside it, two
 * allocations on one line that together hold more than the chain's one,
 * each less: the line's row holds the most at exit. Prints the lines. */
#include <cuda_runtime_api.h>
#include <stdio.h>

static int buffer_line, cache_line, call_line, pair_line;

static inline __attribute__((always_inline)) void *device_buffer(size_t bytes)
{
	void *p = NULL;
	buffer_line = __LINE__ + 1;
	cudaMalloc(&p, bytes);
	return p;
}

static inline __attribute__((always_inline)) void *load_cache(size_t bytes)
{
	cache_line = __LINE__ + 1;
	return device_buffer(bytes * 2);
}

int main(void)
{
	call_line = __LINE__ + 1;
	void *cache = load_cache((size_t)16 << 20);
	void *a = NULL, *b = NULL;
	// clang-format off
	pair_line = __LINE__ + 1;
	cudaMalloc(&a, (size_t)20 << 20); cudaMalloc(&b, (size_t)20 << 20);
	// clang-format on
	printf("inline_chain: buffer_line=%d cache_line=%d call_line=%d pair_line=%d\n",
	       buffer_line, cache_line, call_line, pair_line);
	return cache && a && b ? 0 : 1;
}
