/* 16 threads on 2 devices allocating, freeing, tagging and dumping at
 * once. Every thread ends holding (thread + 1) MiB under its own tag. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>

#include "vramtrace.h"

#define THREADS 16
#define ROUNDS  5000

static const char *dump_path;

static void *work(void *arg)
{
	long id = (long)arg;
	char tag[32];
	snprintf(tag, sizeof(tag), "thread%ld", id);
	if (cudaSetDevice((int)(id % 2)) != cudaSuccess)
		return (void *)1;
	void *kept;
	vramtrace_push(tag);
	if (cudaMalloc(&kept, (size_t)(id + 1) << 20) != cudaSuccess)
		return (void *)1;
	for (int i = 0; i < ROUNDS; i++) {
		void *p;
		vramtrace_push("scratch");
		if (cudaMalloc(&p, 4096) != cudaSuccess)
			return (void *)1;
		vramtrace_pop();
		if (i % 100 == 0)
			vramtrace_tag_pointer(p, "retagged");
		if (cudaFree(p) != cudaSuccess)
			return (void *)1;
		if (id == 0 && i % 1000 == 0 && dump_path)
			vramtrace_dump(dump_path);
	}
	vramtrace_pop();
	return NULL;
}

int main(int argc, char **argv)
{
	dump_path = argc > 1 ? argv[1] : NULL;
	pthread_t threads[THREADS];
	for (long t = 0; t < THREADS; t++)
		pthread_create(&threads[t], NULL, work, (void *)t);
	int failed = 0;
	for (int t = 0; t < THREADS; t++) {
		void *result;
		pthread_join(threads[t], &result);
		failed |= result != NULL;
	}
	puts(failed ? "stress: failed" : "stress: ok");
	return failed;
}
