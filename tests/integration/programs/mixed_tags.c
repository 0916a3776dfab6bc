/* One line of code run under four tags (as one layer's code runs in a
 * range per layer): 1, 2, 3 and 4 MiB tagged a, b, c and d from one call
 * stack, and 5 MiB tagged a from another line. The peak is 15 MiB: a
 * holds 6, b 2, c 3, d 4. The first line is four stacks, one per tag (a
 * stack is its frames with its tag), of 1, 2, 3 and 4 MiB. */
#include <cuda_runtime_api.h>

#include "vramtrace.h"

#define MiB (1ull << 20)

static void *allocate(size_t bytes)
{
	void *p = NULL;
	return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
}

int main(void)
{
	static const char *const tags[] = {"a", "b", "c", "d"};
	for (int i = 0; i < 4; i++) {
		vramtrace_push(tags[i]);
		if (!allocate((size_t)(i + 1) * MiB))
			return 1;
		vramtrace_pop();
	}
	vramtrace_push("a");
	void *other = NULL;
	if (cudaMalloc(&other, 5 * MiB))
		return 2;
	vramtrace_pop();
	return 0;
}
