/* Allocate/free pairs through the runtime API on the simulated device:
 * nanoseconds per pair, printed for one thread count. Run with and without
 * the preload by bench.sh, which prints the ratio. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned pairs;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *work(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < pairs; i++) {
		void *p;
		if (cudaMalloc(&p, 4096) != cudaSuccess || cudaFree(p) != cudaSuccess)
			return (void *)1;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
	pairs = argc > 2 ? (unsigned)atoi(argv[2]) : 200000;
	if (threads == 0 || threads > 64 || pairs == 0) {
		fprintf(stderr, "usage: bench_alloc [THREADS 1-64] [PAIRS PER THREAD]\n");
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
	/* Wall time per pair per thread: what one thread's call costs. */
	printf("%.1f\n", elapsed / pairs);
	return failed;
}
