/* 1,000,000 live allocations from 100,000 distinct call stacks, then one
 * report on demand, timed. The stacks differ by the path taken through a
 * 17-level binary tree of calls. */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "vramtrace.h"

#define LEVELS 17

static volatile int sink;

static void allocate(void)
{
	void *p;
	if (cudaMalloc(&p, 256) != cudaSuccess)
		exit(1);
}

__attribute__((noinline)) static void left(unsigned path, unsigned level);
__attribute__((noinline)) static void right(unsigned path, unsigned level);

static void step(unsigned path, unsigned level)
{
	if (level == LEVELS)
		allocate();
	else if (path >> level & 1)
		right(path, level + 1);
	else
		left(path, level + 1);
}

__attribute__((noinline)) static void left(unsigned path, unsigned level)
{
	step(path, level);
	sink++;
}

__attribute__((noinline)) static void right(unsigned path, unsigned level)
{
	step(path, level);
	sink++;
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned stacks = argc > 1 ? (unsigned)atoi(argv[1]) : 100000;
	unsigned live = argc > 2 ? (unsigned)atoi(argv[2]) : 1000000;
	const char *path = argc > 3 ? argv[3] : "/tmp/vramtrace-bench.%p.json";
	for (unsigned i = 0; i < live; i++)
		step(i % stacks, 0);
	double start = seconds();
	int rc = vramtrace_dump(path);
	printf("report_seconds %.3f\n", seconds() - start);
	return rc == 0 ? 0 : 1;
}
