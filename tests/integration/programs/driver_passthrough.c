/* The driver API surface vramtrace wraps, valid and invalid calls, with
 * every return code, output value and errno printed: the same with and
 * without vramtrace. Pointers are checked by use, as they differ per run. */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ERRNO_MARK 777

static void show(const char *what, CUresult rc)
{
	printf("%-40s rc=%-4d errno=%d\n", what, (int)rc, errno);
	errno = ERRNO_MARK;
}

static void show_usable(const char *what, CUdeviceptr p, size_t bytes)
{
	char pattern[16] = "pattern", back[16] = "";
	int usable = p && cuMemcpyHtoD(p, pattern, sizeof(pattern)) == 0 &&
		     cuMemcpyDtoH(back, p, sizeof(back)) == 0 && strcmp(back, pattern) == 0;
	size_t size = 0;
	CUdeviceptr base = 0;
	int whole = cuMemGetAddressRange(&base, &size, p) == 0 && base == p && size == bytes;
	printf("%-40s usable=%d whole=%d\n", what, usable, whole);
	errno = ERRNO_MARK;
}

int main(void)
{
	CUdevice device;
	CUcontext context;
	CUdeviceptr p = 0, q = 0;
	size_t pitch = 3;
	void *host = NULL;
	errno = ERRNO_MARK;
	show("cuMemAlloc before cuInit", cuMemAlloc(&p, 16));
	show("cuInit", cuInit(0));
	show("cuMemAlloc without a context", cuMemAlloc(&p, 16));
	show("cuDeviceGet(7)", cuDeviceGet(&device, 7));
	show("cuDeviceGet(0)", cuDeviceGet(&device, 0));
	show("cuCtxCreate", cuCtxCreate(&context, NULL, 0, device));
	show("cuMemAlloc(NULL, 16)", cuMemAlloc(NULL, 16));
	show("cuMemAlloc(&p, 0)", cuMemAlloc(&p, 0));
	show("cuMemAlloc(&p, 1 MiB)", cuMemAlloc(&p, 1 << 20));
	show_usable("  p", p, 1 << 20);
	q = 0x1234;
	show("cuMemAlloc(&q, 1 PiB)", cuMemAlloc(&q, 1ull << 50));
	printf("  q unchanged: %d\n", q == 0x1234);
	show("cuMemFree(0)", cuMemFree(0));
	show("cuMemFree(p)", cuMemFree(p));
	show("cuMemFree(p) again", cuMemFree(p));
	show("cuMemAllocPitch(element 3)", cuMemAllocPitch(&p, &pitch, 64, 4, 3));
	show("cuMemAllocPitch(64 x 4)", cuMemAllocPitch(&p, &pitch, 64, 4, 8));
	printf("  pitch=%zu\n", pitch);
	show_usable("  pitched", p, pitch * 4);
	show("cuMemFree(pitched)", cuMemFree(p));
	show("cuMemAllocManaged(flags 9)", cuMemAllocManaged(&p, 4096, 9));
	show("cuMemAllocManaged(4 KiB)", cuMemAllocManaged(&p, 4096, CU_MEM_ATTACH_GLOBAL));
	show("cuMemFree(managed)", cuMemFree(p));
	show("cuMemHostAlloc(flags 0x80)", cuMemHostAlloc(&host, 4096, 0x80));
	show("cuMemHostAlloc(4 KiB)", cuMemHostAlloc(&host, 4096, CU_MEMHOSTALLOC_PORTABLE));
	show("cuMemFree(host)", cuMemFree((CUdeviceptr)host));
	show("cuMemFreeHost(host)", cuMemFreeHost(host));
	show("cuMemFreeHost(host) again", cuMemFreeHost(host));
	show("cuMemAllocHost(0)", cuMemAllocHost(&host, 0));
	show("cuMemAllocAsync(2 MiB)", cuMemAllocAsync(&p, 2 << 20, NULL));
	show_usable("  async", p, 2 << 20);
	show("cuMemFreeAsync", cuMemFreeAsync(p, NULL));
	show("cuMemFreeAsync again", cuMemFreeAsync(p, NULL));
	CUmemoryPool pool;
	show("cuDeviceGetDefaultMemPool", cuDeviceGetDefaultMemPool(&pool, device));
	show("cuMemAllocFromPoolAsync", cuMemAllocFromPoolAsync(&p, 1 << 20, pool, NULL));
	show("cuMemFree(from pool)", cuMemFree(p));
	void *fn = (void *)1;
	CUdriverProcAddressQueryResult status = 99;
	show("cuGetProcAddress(NULL)", cuGetProcAddress("cuMemAlloc", NULL, 12000, 0, &status));
	show("cuGetProcAddress(unknown)", cuGetProcAddress("cuNope", &fn, 12000, 0, &status));
	printf("  fn null=%d status=%d\n", fn == NULL, (int)status);
	show("cuGetProcAddress(cuMemAlloc@1000)",
	     cuGetProcAddress("cuMemAlloc", &fn, 1000, 0, &status));
	printf("  status=%d\n", (int)status);
	PFN_cuMemAlloc_v3020 mem_alloc = NULL;
	show("cuGetProcAddress(cuMemAlloc@12000)",
	     cuGetProcAddress("cuMemAlloc", (void **)&mem_alloc, 12000, 0, &status));
	show("  through the pointer", mem_alloc ? mem_alloc(&p, 4096) : CUDA_ERROR_UNKNOWN);
	show_usable("  allocated", p, 4096);
	show("cuMemFree(it)", cuMemFree(p));
	show("cuCtxDestroy", cuCtxDestroy(context));
	return 0;
}
