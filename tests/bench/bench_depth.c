/* Allocate/free pairs at a chosen stack depth, through cudaMalloc on the
 * simulated device or through malloc (for heaptrack, the reference tracer
 * of host allocations). Prints wall nanoseconds per pair, over the pairs
 * of all threads together: what the goal for threads compares; and the
 * process's CPU nanoseconds per pair over the same span, which tell work
 * added from waiting added when threads outnumber cores. THREADS 0 runs
 * the loop on the main thread instead: the heap's layout differs between
 * the two shapes, which moves the driver's own malloc by hundreds of
 * instructions per pair, so a figure from one shape alone is not a result. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned pairs, depth;
static int use_cuda;
static volatile int sink;

static void loop(void)
{
	for (unsigned i = 0; i < pairs; i++) {
		if (use_cuda) {
			void *p;
			if (cudaMalloc(&p, 4096) != cudaSuccess || cudaFree(p) != cudaSuccess)
				exit(1);
		} else {
			void *p = malloc(4096);
			sink += p != NULL;
			free(p);
		}
	}
}

/* Each level is a real frame: no inlining, no tail call. */
__attribute__((noinline)) static void descend(unsigned level)
{
	if (level == 0)
		loop();
	else
		descend(level - 1);
	sink++;
}

static void *run_loop(void *arg)
{
	(void)arg;
	descend(depth);
	return NULL;
}

static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 4 || (strcmp(argv[1], "cuda") != 0 && strcmp(argv[1], "malloc") != 0)) {
		fprintf(stderr, "usage: bench_depth cuda|malloc DEPTH PAIRS [THREADS]\n"
				"  THREADS 0: the loop runs on the main thread\n");
		return 2;
	}
	use_cuda = argv[1][0] == 'c';
	depth = (unsigned)atoi(argv[2]);
	pairs = (unsigned)atoi(argv[3]);
	unsigned threads = argc > 4 ? (unsigned)atoi(argv[4]) : 1;
	if (threads > 64)
		return 2;
	if (use_cuda)
		cudaFree(NULL);
	pthread_t ids[64];
	uint64_t start = now_ns(CLOCK_MONOTONIC), cpu_start = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (threads == 0)
		run_loop(NULL);
	for (unsigned t = 0; t < threads; t++)
		pthread_create(&ids[t], NULL, run_loop, NULL);
	for (unsigned t = 0; t < threads; t++)
		pthread_join(ids[t], NULL);
	double all_pairs = (double)pairs * (threads ? threads : 1);
	printf("ns_per_pair %.1f\n", (double)(now_ns(CLOCK_MONOTONIC) - start) / all_pairs);
	printf("cpu_ns_per_pair %.1f\n",
	       (double)(now_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_start) / all_pairs);
	return 0;
}
