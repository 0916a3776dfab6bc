/* Known call paths, printed with their line numbers, for the symbolizer. */
#include <cuda_runtime_api.h>
#include <stdio.h>

static int weights_line, cache_line, call_line;

__attribute__((noinline)) static void *allocate_weights(void)
{
	void *p;
	weights_line = __LINE__ + 1;
	cudaMalloc(&p, 64 << 20);
	__asm__ volatile("");
	return p;
}

__attribute__((noinline)) static void *allocate_cache(void)
{
	void *p;
	cache_line = __LINE__ + 1;
	cudaMalloc(&p, 16 << 20);
	__asm__ volatile("");
	return p;
}

int main(void)
{
	allocate_weights();
	call_line = __LINE__ + 2;
	for (int i = 0; i < 3; i++)
		allocate_cache(); /* one stack, three allocations */
	printf("stacks: weights_line=%d cache_line=%d call_line=%d\n", weights_line, cache_line,
	       call_line);
	return 0;
}
