/* 2^depth distinct call stacks, one 4 KiB allocation each, all live at
 * exit: a report with that many stacks, for the tools to read in time.
 * With a second argument, SIGTERM comes that many milliseconds after main
 * returns, while the report is being written. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void walk(int depth, unsigned path);

static void __attribute__((noinline)) left(int depth, unsigned path)
{
	walk(depth, path);
}

static void __attribute__((noinline)) right(int depth, unsigned path)
{
	walk(depth, path);
}

static void walk(int depth, unsigned path)
{
	if (depth == 0) {
		void *p;
		cudaMalloc(&p, 4096);
		return;
	}
	if (path & 1)
		left(depth - 1, path >> 1);
	else
		right(depth - 1, path >> 1);
}

static void *terminate_later(void *arg)
{
	long ms = (long)(intptr_t)arg;
	struct timespec pause = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&pause, NULL);
	kill(getpid(), SIGTERM);
	return NULL;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 15;
	for (unsigned path = 0; path < (1u << depth); path++)
		walk(depth, path);
	if (argc > 2) {
		pthread_t thread;
		pthread_create(&thread, NULL, terminate_later, (void *)(intptr_t)atol(argv[2]));
	}
	return 0;
}
