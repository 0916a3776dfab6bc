/* Explicit tags through include/vramtrace.h: push/pop, the scope macro,
 * re-tagging, nesting on several threads, and a report on demand. The peak
 * is 10 MiB + 3 x 4 threads... see the test for every number. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>

#include "vramtrace.h"

#define MiB (1 << 20)

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	void *outer, *inner;
	vramtrace_push("worker");
	cudaMalloc(&outer, MiB); /* "worker" */
	vramtrace_push(id % 2 ? "odd" : "even");
	cudaMalloc(&inner, 2 * MiB); /* "odd" or "even" */
	vramtrace_pop();
	vramtrace_pop();
	return NULL;
}

int main(int argc, char **argv)
{
	void *weights, *cache, *scratch, *untagged;
	cudaFree(NULL);
	vramtrace_push("weights");
	cudaMalloc(&weights, 10 * MiB);
	vramtrace_pop();
	{
		VRAMTRACE_SCOPE("kv_cache");
		cudaMalloc(&cache, 4 * MiB);
	}
	cudaMalloc(&scratch, 3 * MiB); /* untagged, then re-tagged */
	int retagged = vramtrace_tag_pointer(scratch, "activations");
	cudaMalloc(&untagged, 1 * MiB);
	pthread_t threads[4];
	for (long t = 0; t < 4; t++)
		pthread_create(&threads[t], NULL, worker, (void *)t);
	for (int t = 0; t < 4; t++)
		pthread_join(threads[t], NULL);
	int dumped = argc > 1 ? vramtrace_dump(argv[1]) : 0;
	printf("tags: retagged=%d dumped=%d pop_empty=%d\n", retagged, dumped, vramtrace_pop());
	return 0;
}
