/* Leaks that one row lists: 40 MB from each of two return addresses on
 * one line, beside 50 MB from another line. The report lists the 50 MB
 * first, as the larger leak; the line's row of 80 MB is the largest. The
 * 200 MB freed before the end are the first stack row at the peak, the
 * leaks' rows second and third. Built unoptimized, so the two calls on
 * one line stay two. */
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
	void *elsewhere = NULL;
	cudaMalloc(&elsewhere, 50000000);
	void *a = one_line(1, 40000000), *b = one_line(0, 40000000), *freed = NULL;
	cudaMalloc(&freed, 200000000);
	cudaFree(freed);
	printf("leak_rows: line=%d\n", line);
	return a && b && elsewhere ? 0 : 1;
}
