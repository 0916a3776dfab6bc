/* A process that lives until told to end, for the control endpoint's
 * tests: each line on stdin is a step, answered "ok" on stdout once done.
 *   alloc BYTES TAG   cudaMalloc under that tag (the allocation's index
 *                     counts from 0)
 *   free INDEX        cudaFree of that allocation
 *   exit CODE         returns CODE from main
 *   exec              replaces itself with /bin/true */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vramtrace.h"

#define MAX_ALLOCATIONS 1024

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
		} else if (sscanf(line, "free %d", &index) == 1 && index >= 0 && index < count) {
			cudaFree(allocations[index]);
		} else if (sscanf(line, "exit %d", &code) == 1) {
			return code;
		} else if (strcmp(line, "exec\n") == 0) {
			execl("/bin/true", "true", (char *)NULL);
		}
		printf("ok\n");
		fflush(stdout);
	}
	return 0;
}
