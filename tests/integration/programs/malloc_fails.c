/* A program whose malloc fails after a given number of calls (argv[1])
 * once main is done, or from its start with "early" (argv[3]), or only
 * while it pushes a tag new to the tracer with "tag"; it exits
 * with argv[2]: what the tracer does meets a host out of memory. The program's own allocator
 * interposes on every library's, vramtrace's and libdw's included. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vramtrace.h"

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t count, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t alignment, size_t size);
void __libc_free(void *p);

static atomic_bool armed;
static atomic_long left;

static int fails(void)
{
	if (!atomic_load(&armed) || atomic_fetch_sub(&left, 1) > 0)
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t size)
{
	return fails() ? NULL : __libc_malloc(size);
}

void *calloc(size_t count, size_t size)
{
	return fails() ? NULL : __libc_calloc(count, size);
}

void *realloc(void *p, size_t size)
{
	return fails() ? NULL : __libc_realloc(p, size);
}

void *memalign(size_t alignment, size_t size)
{
	return fails() ? NULL : __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size)
{
	return memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size)
{
	void *p = memalign(alignment, size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void free(void *p)
{
	__libc_free(p);
}

int main(int argc, char **argv)
{
	long after = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	int status = argc > 2 ? atoi(argv[2]) : 0;
	bool early = argc > 3 && strcmp(argv[3], "early") == 0; /* before any CUDA call */
	bool tag = argc > 3 && strcmp(argv[3], "tag") == 0;
	if (early) {
		atomic_store(&left, after);
		atomic_store(&armed, true);
	}
	void *device[4];
	for (int i = 0; i < 4; i++)
		cudaMalloc(&device[i], (size_t)(i + 1) << 20);
	cudaFree(device[0]);
	if (tag) {
		/* The library's functions found first: the lookup allocates. */
		vramtrace_push("untagged");
		vramtrace_pop();
		atomic_store(&left, after);
		atomic_store(&armed, true);
		int pushed = vramtrace_push("a tag new to the tracer");
		atomic_store(&armed, false);
		if (pushed == 0) {
			cudaMalloc(&device[0], 1 << 20);
			vramtrace_pop();
		}
	}
	printf("leaving with %d\n", status);
	fflush(stdout);
	if (!early && !tag) {
		atomic_store(&left, after);
		atomic_store(&armed, true);
	}
	return status;
}
