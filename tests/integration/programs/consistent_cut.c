/* Reports written while other threads allocate: four threads on two
 * devices and the host allocate, free and fail without pause, while the
 * main thread writes DUMPS reports with vramtrace_dump and then ends the
 * process (exit, or SIGTERM) with the threads still running. Each report
 * must agree with itself. Usage: consistent_cut DUMPS DIR exit|signal */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vramtrace.h"

#define THREADS 4
#define RING    8

static atomic_int started;

static void churn(long id, unsigned long i, void **ring)
{
	void **slot = &ring[i % RING];
	if (*slot)
		cudaFree(*slot);
	*slot = NULL;
	cudaMalloc(slot, 4096 * (1 + (i + (unsigned long)id) % 16));
	if (i % 16 == 0) {
		void *host = NULL;
		if (cudaMallocHost(&host, 8192) == cudaSuccess)
			cudaFreeHost(host);
	}
	if (i % 64 == 0) {
		void *none;
		cudaMalloc(&none, (size_t)1 << 50); /* fails: no device has a PiB */
	}
}

static void *work(void *arg)
{
	long id = (long)arg;
	void *ring[RING] = {0};
	char tag[16];
	snprintf(tag, sizeof(tag), "worker%ld", id);
	cudaSetDevice((int)(id % 2));
	vramtrace_push(tag);
	churn(id, 0, ring);
	atomic_fetch_add(&started, 1); /* every report sees this thread's events */
	for (unsigned long i = 1;; i++)
		churn(id, i, ring);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	int dumps = atoi(argv[1]);
	cudaFree(NULL);
	pthread_t thread;
	for (long t = 0; t < THREADS; t++)
		pthread_create(&thread, NULL, work, (void *)t);
	while (atomic_load(&started) < THREADS)
		usleep(100);
	usleep(2000);
	for (int i = 0; i < dumps; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/dump-%03d.json", argv[2], i);
		if (vramtrace_dump(path) != 0) {
			fprintf(stderr, "consistent_cut: dump %d failed\n", i);
			return 1;
		}
		usleep(1000);
	}
	if (strcmp(argv[3], "signal") == 0)
		raise(SIGTERM);
	return 0; /* the threads still allocate while exit writes the report */
}
