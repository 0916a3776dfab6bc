/* The parent allocates, then forks a child that exits without touching
 * CUDA and a child that allocates on its own: the first writes nothing, the
 * second its own report with only its own allocation. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int wait_for(pid_t child)
{
	int status;
	return waitpid(child, &status, 0) == child && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(void)
{
	void *p;
	if (cudaMalloc(&p, 64 << 20) != cudaSuccess)
		return 1;
	pid_t quiet = fork();
	if (quiet == 0)
		exit(0);
	pid_t busy = fork();
	if (busy == 0) {
		/* Real CUDA does not survive fork; the simulated device does, and
		 * stands in for a child that starts CUDA afresh. */
		void *q;
		exit(cudaMalloc(&q, 8 << 20) == cudaSuccess ? 0 : 1);
	}
	int failed = wait_for(quiet) | wait_for(busy);
	printf("fork_child: parent %d\n", (int)getpid());
	return failed;
}
