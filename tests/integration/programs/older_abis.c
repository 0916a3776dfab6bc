/* A context's end through the driver's older ABIs, which programs and
 * libraries built against older headers call: CUDA 7.0's
 * cuDevicePrimaryCtxRelease and cuDevicePrimaryCtxReset, 2.0's
 * cuCtxDestroy, 3.2's cuCtxCreate_v2 and 11.4's cuCtxCreate_v3, by their
 * exported names or handed out by cuGetProcAddress for an older version.
 * 1 MiB in the primary context ended by its last release, 2 MiB by a
 * reset, 4 MiB in a created context destroyed; 8 MiB live at exit in
 * another. Four contexts in all (the primary retained twice).
 * With "capture": CUDA 10.0's cuStreamBeginCapture, and a 6 MiB
 * stream-ordered allocation and its free captured (a graph's nodes,
 * never launched: nothing allocated); and 64 KiB of pages registered by
 * CUDA 4.0's cuMemHostRegister, left registered. */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#undef cuCtxCreate
#undef cuCtxDestroy
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset
#undef cuMemHostRegister
#undef cuStreamBeginCapture
CUresult cuCtxCreate_v2(CUcontext *context, unsigned int flags, CUdevice device);
CUresult cuCtxDestroy(CUcontext context);
CUresult cuDevicePrimaryCtxRelease(CUdevice device);
CUresult cuMemHostRegister(void *pages, size_t bytes, unsigned int flags);
CUresult cuStreamBeginCapture(CUstream stream);

#define MiB (1ull << 20)

static int failed;

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "older_abis: %s failed\n", what);
		failed = 1;
	}
}

/* The entry point cuGetProcAddress hands out for a program of version. */
static void *entry_point(const char *name, int version)
{
	void *function = NULL;
	CUdriverProcAddressQueryResult found;
	expect(cuGetProcAddress(name, &function, version, 0, &found) == CUDA_SUCCESS &&
		       found == CU_GET_PROC_ADDRESS_SUCCESS && function,
	       name);
	return function;
}

static void in_primary(size_t bytes)
{
	CUcontext primary;
	CUdeviceptr memory;
	expect(cuDevicePrimaryCtxRetain(&primary, 0) == CUDA_SUCCESS, "cuDevicePrimaryCtxRetain");
	expect(cuCtxSetCurrent(primary) == CUDA_SUCCESS, "cuCtxSetCurrent");
	expect(cuMemAlloc(&memory, bytes) == CUDA_SUCCESS, "cuMemAlloc in the primary");
}

static int capture(void)
{
	static char pages[64 * 1024] __attribute__((aligned(4096)));
	CUstream stream;
	CUdeviceptr memory;
	CUgraph graph;
	in_primary(1 * MiB);
	expect(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS, "cuStreamCreate");
	expect(cuStreamBeginCapture(stream) == CUDA_SUCCESS, "cuStreamBeginCapture");
	expect(cuMemAllocAsync(&memory, 6 * MiB, stream) == CUDA_SUCCESS, "cuMemAllocAsync");
	expect(cuMemFreeAsync(memory, stream) == CUDA_SUCCESS, "cuMemFreeAsync");
	expect(cuStreamEndCapture(stream, &graph) == CUDA_SUCCESS, "cuStreamEndCapture");
	expect(cuMemHostRegister(pages, sizeof(pages), 0) == CUDA_SUCCESS, "cuMemHostRegister");
	printf("older_abis: %s\n", failed ? "failed" : "ok");
	return failed;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "capture") == 0) {
		expect(cuInit(0) == CUDA_SUCCESS, "cuInit");
		return capture();
	}
	CUresult (*reset)(CUdevice) = entry_point("cuDevicePrimaryCtxReset", 10000);
	CUresult (*create_v3)(CUcontext *, CUexecAffinityParam *, int, unsigned int, CUdevice) =
		entry_point("cuCtxCreate", 11040);
	expect(cuInit(0) == CUDA_SUCCESS, "cuInit");
	in_primary(1 * MiB);
	expect(cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS, "cuDevicePrimaryCtxRelease");
	in_primary(2 * MiB);
	expect(reset && reset(0) == CUDA_SUCCESS, "cuDevicePrimaryCtxReset");
	CUcontext created, kept;
	CUdeviceptr memory;
	expect(cuCtxCreate_v2(&created, 0, 0) == CUDA_SUCCESS, "cuCtxCreate_v2");
	expect(cuMemAlloc(&memory, 4 * MiB) == CUDA_SUCCESS, "cuMemAlloc in it");
	expect(cuCtxDestroy(created) == CUDA_SUCCESS, "cuCtxDestroy");
	expect(create_v3 && create_v3(&kept, NULL, 0, 0, 0) == CUDA_SUCCESS, "cuCtxCreate_v3");
	expect(cuMemAlloc(&memory, 8 * MiB) == CUDA_SUCCESS, "cuMemAlloc in another");
	printf("older_abis: %s\n", failed ? "failed" : "ok");
	return failed;
}
