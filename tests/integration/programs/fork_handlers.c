/* fork handlers registered before the first CUDA call that use CUDA
 * themselves (a pool that frees its scratch before fork, takes it again in
 * the parent, and a child that starts afresh): argv[1] names the phase that
 * allocates, "prepare", "parent" or "child". Each must run as without the
 * tracer, and none may wait on a lock of the tracer's. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *phase;
static void *scratch;

static void prepare(void)
{
	if (strcmp(phase, "prepare") == 0) {
		printf("prepare: free %d\n", (int)cudaFree(scratch));
		scratch = NULL;
	}
}

static void parent(void)
{
	if (strcmp(phase, "parent") == 0)
		printf("parent: allocate %d\n", (int)cudaMalloc(&scratch, 2 << 20));
}

static void child(void)
{
	void *fresh;
	if (strcmp(phase, "child") == 0)
		printf("child: allocate %d\n", (int)cudaMalloc(&fresh, 2 << 20));
}

int main(int argc, char **argv)
{
	phase = argc > 1 ? argv[1] : "";
	pthread_atfork(prepare, parent, child);
	void *held;
	if (cudaMalloc(&held, 4 << 20) || cudaMalloc(&scratch, 2 << 20))
		return 1;
	fflush(stdout);
	pid_t forked = fork();
	if (forked == 0) {
		fflush(stdout);
		_exit(0);
	}
	int status = -1;
	waitpid(forked, &status, 0);
	printf("fork_handlers: child status %d\n", status);
	return cudaFree(held) || (scratch && cudaFree(scratch));
}
