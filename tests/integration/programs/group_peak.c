/* One line, two return addresses, whose allocations peak apart: 100 MB
 * from one, freed, then 10 MB from the same and 60 MB from the other, all
 * from one call site. The line's own peak is 100 MB, not the 160 MB of
 * its stacks' peaks added. Then 50 MB elsewhere make the device's peak,
 * 120 MB. Built unoptimized. */
#include <cuda_runtime_api.h>
#include <stdio.h>

static int line;

static void *one_line(int which, size_t bytes)
{
	void *p = NULL;
	// clang-format off
	line = __LINE__ + 1;
	if (which) cudaMalloc(&p, bytes); else cudaMalloc(&p, bytes);
	// clang-format on
	return p;
}

int main(void)
{
	static const int which[] = {1, 1, 0};
	static const size_t bytes[] = {100000000, 10000000, 60000000};
	void *held[3] = {0}, *elsewhere = NULL;
	for (int i = 0; i < 3; i++) {
		held[i] = one_line(which[i], bytes[i]);
		if (i == 0)
			cudaFree(held[0]);
	}
	cudaMalloc(&elsewhere, 50000000);
	printf("group_peak: line=%d\n", line);
	return held[1] && held[2] && elsewhere ? 0 : 1;
}
