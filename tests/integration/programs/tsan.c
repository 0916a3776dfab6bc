/* A program built with ThreadSanitizer whose threads allocate and exit. */
#include <cuda_runtime_api.h>
#include <pthread.h>

static void *allocate(void *arg)
{
	(void)arg;
	void *p;
	if (cudaMalloc(&p, 1 << 20) == cudaSuccess)
		cudaFree(p);
	return NULL;
}

int main(void)
{
	pthread_t threads[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&threads[i], NULL, allocate, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(threads[i], NULL);
	void *held;
	return cudaMalloc(&held, 64 << 20) == cudaSuccess ? 0 : 1;
}
