/* Allocate/free pairs through the runtime API on the simulated device:
 * nanoseconds per pair, printed for one thread count; cudaMalloc/cudaFree,
 * or cudaMallocAsync/cudaFreeAsync with "async". Run with and without the
 * preload by bench_alloc.sh, which prints the ratio. */
#include <stdbool.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned pairs;
static bool stream_ordered;

static bool pair(void)
{
	void *p;
	if (stream_ordered)
		return cudaMallocAsync(&p, 4096, 0) == cudaSuccess &&
		       cudaFreeAsync(p, 0) == cudaSuccess;
	return cudaMalloc(&p, 4096) == cudaSuccess && cudaFree(p) == cudaSuccess;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *work(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < pairs; i++)
		if (!pair())
			return (void *)1;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
	pairs = argc > 2 ? (unsigned)atoi(argv[2]) : 200000;
	stream_ordered = argc > 3 && strcmp(argv[3], "async") == 0;
	if (threads == 0 || threads > 64 || pairs == 0) {
		fprintf(stderr, "usage: bench_alloc [THREADS 1-64] [PAIRS PER THREAD] [async]\n");
		return 2;
	}
	cudaFree(NULL); /* context creation is not what is measured */
	pthread_t ids[64];
	uint64_t start = now_ns();
	for (unsigned t = 0; t < threads; t++)
		pthread_create(&ids[t], NULL, work, NULL);
	int failed = 0;
	for (unsigned t = 0; t < threads; t++) {
		void *result;
		pthread_join(ids[t], &result);
		failed |= result != NULL;
	}
	double elapsed = (double)(now_ns() - start);
	/* Wall time per pair, over the pairs of all threads together. */
	printf("%.1f\n", elapsed / ((double)pairs * threads));
	return failed;
}
