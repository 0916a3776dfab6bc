/* Places the symbolizer must name truly, built with optimization: a
 * function the compiler inlines into main, and one source line with two
 * calls (two return addresses, one place). Prints the lines it used. */
#include <cuda_runtime_api.h>
#include <stdio.h>

static int weights_line, call_line, pair_line;

static inline __attribute__((always_inline)) void *load_weights(size_t bytes)
{
	void *p = NULL;
	weights_line = __LINE__ + 1;
	cudaMalloc(&p, bytes);
	return p;
}

int main(void)
{
	call_line = __LINE__ + 1;
	void *weights = load_weights((size_t)64 << 20);
	void *a = NULL, *b = NULL;
	// clang-format off
	pair_line = __LINE__ + 1;
	cudaMalloc(&a, (size_t)3 << 20); cudaMalloc(&b, (size_t)5 << 20);
	// clang-format on
	printf("inlined: weights_line=%d call_line=%d pair_line=%d\n", weights_line, call_line,
	       pair_line);
	return weights && a && b ? 0 : 1;
}
