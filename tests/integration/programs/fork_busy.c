/* fork while other threads are inside vramtrace, holding its locks: the
 * children must never find a lock taken. Each child tags (the tag table's
 * lock) and exits; a child stuck on a lock is killed by its alarm. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vramtrace.h"

#define FORKS 200

static atomic_int stop;

/* Two threads allocate (the ledger, device and stack locks), two only tag
 * (the tag table's lock, then held most of the time). */
static void *busy(void *arg)
{
	const char *tag = arg;
	bool allocates = tag[0] < 'c';
	while (!atomic_load(&stop)) {
		void *p;
		vramtrace_push(tag);
		if (allocates && cudaMalloc(&p, 4096) == cudaSuccess)
			cudaFree(p);
		vramtrace_pop();
	}
	return NULL;
}

int main(void)
{
	static const char *const tags[] = {"a", "b", "c", "d"};
	pthread_t threads[4];
	cudaFree(NULL);
	for (int t = 0; t < 4; t++)
		pthread_create(&threads[t], NULL, busy, (void *)tags[t]);
	int stuck = 0;
	for (int i = 0; i < FORKS; i++) {
		pid_t child = fork();
		if (child == 0) {
			alarm(10);
			vramtrace_push("child");
			vramtrace_pop();
			exit(0);
		}
		int status = 0;
		waitpid(child, &status, 0);
		stuck += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	atomic_store(&stop, 1);
	for (int t = 0; t < 4; t++)
		pthread_join(threads[t], NULL);
	printf("fork_busy: %d of %d children stuck\n", stuck, FORKS);
	return stuck != 0;
}
