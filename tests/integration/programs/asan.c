/* A program built with AddressSanitizer, traced all the same. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	void *p;
	char *host = malloc(64);
	host[0] = 1;
	int rc = cudaMalloc(&p, 32 << 20);
	free(host);
	printf("asan: rc=%d\n", rc);
	return rc;
}
