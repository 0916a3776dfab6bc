/* The control for the benchmark's goal on threads. Preloaded in vramtrace's
 * place, it spends CONTROL_NS nanoseconds of CPU work in each cudaMalloc and
 * cudaFree and shares nothing between threads: no lock, no counter, no
 * cache line another thread writes. What its cost per pair does at 8
 * threads against 1 is what the workload and the machine do to any work
 * added to these calls (threads time-sharing cores, the driver's own
 * lock), so vramtrace's ratio is read against it. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

typedef cudaError_t (*malloc_fn)(void **, size_t);
typedef cudaError_t (*free_fn)(void *);

static malloc_fn real_malloc;
static free_fn real_free;
static uint64_t spins_per_call;

static void spin(uint64_t count)
{
	for (volatile uint64_t i = 0; i < count; i++) {
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The loop's speed, timed over about ten milliseconds at load: the median
 * of five timings, so one preemption does not skew it. */
static double spins_per_ns(void)
{
	const uint64_t count = 1u << 22;
	uint64_t took[5];
	for (int i = 0; i < 5; i++) {
		uint64_t start = now_ns();
		spin(count);
		took[i] = now_ns() - start;
	}
	for (int i = 1; i < 5; i++)
		for (int j = i; j > 0 && took[j] < took[j - 1]; j--) {
			uint64_t t = took[j];
			took[j] = took[j - 1];
			took[j - 1] = t;
		}
	return took[2] ? (double)count / (double)took[2] : 1.0;
}

__attribute__((constructor)) static void control_init(void)
{
	real_malloc = (malloc_fn)dlsym(RTLD_NEXT, "cudaMalloc");
	real_free = (free_fn)dlsym(RTLD_NEXT, "cudaFree");
	const char *ns = getenv("CONTROL_NS");
	spins_per_call = (uint64_t)(spins_per_ns() * (ns ? strtod(ns, NULL) : 0.0));
}

cudaError_t cudaMalloc(void **pointer, size_t size)
{
	spin(spins_per_call);
	return real_malloc(pointer, size);
}

cudaError_t cudaFree(void *pointer)
{
	spin(spins_per_call);
	return real_free(pointer);
}
