/* Report names a user may not mean literally. "gone DIR": the working
 * directory DIR is removed before the first CUDA call. "dump PATH...":
 * one allocation, then vramtrace_dump(PATH) for each, printing what each
 * returned ("" stands for the empty path). "leave DIR": the first CUDA
 * call in DIR, which is left and removed before the program ends. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vramtrace.h"

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	if (strcmp(argv[1], "gone") == 0 && (chdir(argv[2]) != 0 || rmdir(argv[2]) != 0))
		return 3;
	if (strcmp(argv[1], "leave") == 0 && chdir(argv[2]) != 0)
		return 3;
	void *p;
	if (cudaMalloc(&p, 3 << 20) != cudaSuccess)
		return 1;
	for (int i = 2; strcmp(argv[1], "dump") == 0 && i < argc; i++)
		printf("dump %s: %d\n", argv[i], vramtrace_dump(argv[i]));
	/* A scratch directory the program worked in, left and removed before
	 * it ends: the report's place is gone at exit. */
	if (strcmp(argv[1], "leave") == 0 && (chdir("/") != 0 || rmdir(argv[2]) != 0))
		return 4;
	return 0;
}
