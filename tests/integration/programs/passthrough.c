/* The hooked API surface, valid and invalid calls alike, printing every
 * return code, output value and errno. Its output must be the same with
 * and without vramtrace. Addresses differ between runs, so pointers are
 * checked by use: a copy into the memory succeeds only if the pointer is
 * the one the device handed out. */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ERRNO_MARK 4242

static void show(const char *what, cudaError_t rc)
{
	printf("%-34s rc=%-3d errno=%d\n", what, (int)rc, errno);
	errno = ERRNO_MARK;
}

static void show_device_pointer(const char *what, void *p)
{
	char bytes[64] = "pattern";
	int usable = p && cudaMemcpy(p, bytes, sizeof(bytes), cudaMemcpyHostToDevice) == 0 &&
		     cudaMemcpy(bytes, p, sizeof(bytes), cudaMemcpyDeviceToHost) == 0 &&
		     strcmp(bytes, "pattern") == 0;
	printf("%-34s null=%d usable=%d aligned=%d\n", what, p == NULL, usable,
	       (int)((uintptr_t)p % 256 == 0));
	errno = ERRNO_MARK;
}

int main(void)
{
	void *p = NULL, *q = (void *)0x1, *h = NULL;
	size_t pitch = 7;
	cudaMemPool_t pool;
	errno = ERRNO_MARK;
	show("cudaMalloc(NULL, 16)", cudaMalloc(NULL, 16));
	show("cudaMalloc(&p, 0)", cudaMalloc(&q, 0));
	printf("  q is null: %d\n", q == NULL);
	show("cudaMalloc(&p, 1 MiB)", cudaMalloc(&p, 1 << 20));
	show_device_pointer("  p", p);
	q = (void *)0x1;
	show("cudaMalloc(&q, 1 TiB)", cudaMalloc(&q, 1ull << 40));
	printf("  q unchanged: %d\n", q == (void *)0x1);
	show("cudaGetLastError()", cudaGetLastError());
	show("cudaGetLastError() again", cudaGetLastError());
	show("cudaFreeHost(device pointer)", cudaFreeHost(p));
	show_device_pointer("  p still", p);
	show("cudaFree(p)", cudaFree(p));
	show("cudaFree(p) twice", cudaFree(p));
	show("cudaFree(NULL)", cudaFree(NULL));
	show("cudaFree(0x1234)", cudaFree((void *)0x1234));
	show("cudaMallocPitch(0 wide)", cudaMallocPitch(&q, &pitch, 0, 10));
	show("cudaMallocPitch(100 x 3)", cudaMallocPitch(&p, &pitch, 100, 3));
	printf("  pitch=%zu\n", pitch);
	show_device_pointer("  pitched", p);
	show("cudaFree(pitched)", cudaFree(p));
	show("cudaMallocManaged(bad flags)", cudaMallocManaged(&q, 100, 7));
	show("cudaMallocManaged(4 KiB)", cudaMallocManaged(&p, 4096, cudaMemAttachGlobal));
	show("cudaFree(managed)", cudaFree(p));
	show("cudaMallocHost(&h, 0)", cudaMallocHost(&h, 0));
	show("cudaMallocHost(&h, 64 KiB)", cudaMallocHost(&h, 65536));
	printf("  h is null: %d\n", h == NULL);
	memset(h, 1, 65536);
	show("cudaFree(host pointer)", cudaFree(h));
	show("cudaFreeHost(h)", cudaFreeHost(h));
	show("cudaFreeHost(h) twice", cudaFreeHost(h));
	show("cudaHostAlloc(bad flags)", cudaHostAlloc(&h, 4096, 0x80));
	show("cudaMallocAsync(&p, 0)", cudaMallocAsync(&q, 0, 0));
	show("cudaMallocAsync(&p, 2 MiB)", cudaMallocAsync(&p, 2 << 20, 0));
	show_device_pointer("  async", p);
	show("cudaFreeAsync(p)", cudaFreeAsync(p, 0));
	show("cudaFreeAsync(p) twice", cudaFreeAsync(p, 0));
	show("cudaDeviceGetDefaultMemPool", cudaDeviceGetDefaultMemPool(&pool, 0));
	show("cudaMallocFromPoolAsync", cudaMallocFromPoolAsync(&p, 1 << 20, pool, 0));
	show("cudaFree(from pool)", cudaFree(p));
	show("cudaMallocFromPoolAsync(bad pool)",
	     cudaMallocFromPoolAsync(&q, 1 << 20, (cudaMemPool_t)&pool, 0));
	show("cudaSetDevice(-1)", cudaSetDevice(-1));
	show("cudaSetDevice(9)", cudaSetDevice(9));
	show("cudaDeviceSynchronize()", cudaDeviceSynchronize());
	return 0;
}
