/* Loaded with RTLD_DEEPBIND: binds to its own libcudart first. */
#include <cuda_runtime_api.h>

int deep_allocate(void **buffer, unsigned long bytes);

__attribute__((visibility("default"))) int deep_allocate(void **buffer, unsigned long bytes)
{
	return (int)cudaMalloc(buffer, bytes);
}
