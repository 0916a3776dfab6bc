/* 2^depth distinct call stacks, one 4 KiB allocation each, all live at
 * exit: a report with that many stacks, for the tools to read in time. */
#include <cuda_runtime_api.h>
#include <stdlib.h>

static void walk(int depth, unsigned path);

static void __attribute__((noinline)) left(int depth, unsigned path)
{
	walk(depth, path);
}

static void __attribute__((noinline)) right(int depth, unsigned path)
{
	walk(depth, path);
}

static void walk(int depth, unsigned path)
{
	if (depth == 0) {
		void *p;
		cudaMalloc(&p, 4096);
		return;
	}
	if (path & 1)
		left(depth - 1, path >> 1);
	else
		right(depth - 1, path >> 1);
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 15;
	for (unsigned path = 0; path < (1u << depth); path++)
		walk(depth, path);
	return 0;
}
