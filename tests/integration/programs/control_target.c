/* A process that lives until told to end, for the control endpoint's
 * tests: each line on stdin is a step, answered "ok" on stdout once done.
 *   alloc BYTES TAG   cudaMalloc under that tag (the allocation's index
 *                     counts from 0)
 *   untagged BYTES    cudaMalloc under no tag
 *   free INDEX        cudaFree of that allocation
 *   exit CODE         returns CODE from main
 *   exec              replaces itself with /bin/true
 *   fork              a child that allocates 1 MiB and exits once the file
 *                     fork.release exists (60 s at most)
 *   closefds          closes every descriptor from 3 up, then writes a
 *                     file of its own, closefds.txt, and reads it back
 *   main_exits        a thread that prints "worker ok" after 300 ms and
 *                     exits with status 5, while the main thread ends by
 *                     the exit system call alone */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vramtrace.h"

#define MAX_ALLOCATIONS 1024

static void forked_child(void)
{
	void *memory;
	cudaMalloc(&memory, 1 << 20);
	for (int i = 0; i < 6000 && access("fork.release", F_OK) != 0; i++)
		usleep(10000);
	exit(cudaFree(memory) == cudaSuccess ? 0 : 1);
}

/* As a daemon does: then its own file, which must hold what it wrote. */
static int close_and_reopen(void)
{
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	int file = open("closefds.txt", O_RDWR | O_CREAT | O_TRUNC, 0600);
	char back[6] = "";
	int ok = file >= 0 && write(file, "daemon", 6) == 6 && lseek(file, 0, SEEK_SET) == 0 &&
		 read(file, back, 6) == 6 && memcmp(back, "daemon", 6) == 0;
	return ok ? file : -1;
}

static void *late_worker(void *arg)
{
	(void)arg;
	usleep(300000);
	printf("worker ok\n");
	fflush(stdout);
	exit(5);
}

int main(void)
{
	static void *allocations[MAX_ALLOCATIONS];
	int count = 0;
	char line[256];
	cudaFree(NULL);
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long bytes;
		char tag[128];
		int index, code;
		if (sscanf(line, "alloc %llu %127s", &bytes, tag) == 2 && count < MAX_ALLOCATIONS) {
			vramtrace_push(tag);
			if (cudaMalloc(&allocations[count++], bytes) != cudaSuccess)
				printf("failed ");
			vramtrace_pop();
		} else if (sscanf(line, "untagged %llu", &bytes) == 1 && count < MAX_ALLOCATIONS) {
			cudaMalloc(&allocations[count++], bytes);
		} else if (sscanf(line, "free %d", &index) == 1 && index >= 0 && index < count) {
			cudaFree(allocations[index]);
		} else if (sscanf(line, "exit %d", &code) == 1) {
			return code;
		} else if (strcmp(line, "exec\n") == 0) {
			execl("/bin/true", "true", (char *)NULL);
		} else if (strcmp(line, "exec_fails\n") == 0) {
			execl("/nonexistent/vramtrace-test", "x", (char *)NULL);
			printf("exec failed ");
		} else if (strcmp(line, "fork\n") == 0) {
			if (fork() == 0)
				forked_child();
		} else if (strcmp(line, "main_exits\n") == 0) {
			pthread_t worker;
			pthread_create(&worker, NULL, late_worker, NULL);
			syscall(SYS_exit, 0);
		} else if (strcmp(line, "closefds\n") == 0) {
			printf("fd %d ", close_and_reopen());
		}
		printf("ok\n");
		fflush(stdout);
	}
	return 0;
}
