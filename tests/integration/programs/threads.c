/* 8 threads x 100,000 allocate/free pairs, each thread also keeping one
 * allocation of (thread + 1) MiB to the end: exact totals or nothing. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 8
#define PAIRS   100000

static void *work(void *arg)
{
	size_t thread = (size_t)arg;
	void *kept;
	if (cudaMalloc(&kept, (thread + 1) << 20) != cudaSuccess)
		return (void *)1;
	for (int i = 0; i < PAIRS; i++) {
		void *p;
		if (cudaMalloc(&p, 4096 * (thread + 1)) != cudaSuccess ||
		    cudaFree(p) != cudaSuccess)
			return (void *)1;
	}
	return NULL;
}

int main(void)
{
	pthread_t threads[THREADS];
	cudaFree(NULL);
	for (size_t t = 0; t < THREADS; t++)
		pthread_create(&threads[t], NULL, work, (void *)t);
	int failed = 0;
	for (size_t t = 0; t < THREADS; t++) {
		void *result;
		pthread_join(threads[t], &result);
		failed |= result != NULL;
	}
	puts(failed ? "threads: failed" : "threads: ok");
	return failed;
}
