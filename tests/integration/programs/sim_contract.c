/* What the headers promise and the simulated device must keep, each
 * checked to its exact code: entry points asked for by an unknown name,
 * an old version or a version newer than the driver (cuda.h
 * cuGetProcAddress, cuda_runtime_api.h cudaGetDriverEntryPointByVersion);
 * virtual memory mapped only at the granularity and never twice, and a
 * handle retained from a mapping after its release (cuMemMap,
 * cuMemRetainAllocationHandle); a primary context released for the last
 * time left current (cuDevicePrimaryCtxRelease, CUDA_ERROR_CONTEXT_IS_
 * DESTROYED). Each check prints its name and whether it held. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>

static int failures;

static void check(const char *what, int ok)
{
	printf("%-60s %s\n", what, ok ? "ok" : "FAILED");
	failures += !ok;
}

/* Runs first, before the runtime retains the primary context. */
static void released_primary_context(void)
{
	CUcontext primary = NULL, current = NULL;
	CUdeviceptr dptr = 0;
	unsigned flags = 0;
	int active = -1;
	cuDevicePrimaryCtxRetain(&primary, 0);
	cuCtxSetCurrent(primary);
	check("a retained primary context allocates", cuMemAlloc(&dptr, 4096) == CUDA_SUCCESS);
	check("its last release", cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS);
	check("leaves it current", cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == primary);
	check("inactive",
	      cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS && active == 0);
	check("an allocation in it: CUDA_ERROR_CONTEXT_IS_DESTROYED",
	      cuMemAlloc(&dptr, 4096) == CUDA_ERROR_CONTEXT_IS_DESTROYED);
	check("a synchronize: the same", cuCtxSynchronize() == CUDA_ERROR_CONTEXT_IS_DESTROYED);
	check("retained again, it works",
	      cuDevicePrimaryCtxRetain(&current, 0) == CUDA_SUCCESS && current == primary &&
		      cuMemAlloc(&dptr, 4096) == CUDA_SUCCESS && cuMemFree(dptr) == CUDA_SUCCESS);
	cuDevicePrimaryCtxRelease(0);
	cuCtxSetCurrent(NULL);
}

static void entry_points(void)
{
	void *fn = (void *)1;
	CUdriverProcAddressQueryResult status = 99;
	check("cuGetProcAddress(unknown name): CUDA_SUCCESS",
	      cuGetProcAddress("cuNoSuchFunction", &fn, 12000, 0, &status) == CUDA_SUCCESS);
	check("  a NULL pointer, SYMBOL_NOT_FOUND",
	      fn == NULL && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
	fn = (void *)1;
	check("cuGetProcAddress(cuMemCreate at 10.1): CUDA_SUCCESS",
	      cuGetProcAddress("cuMemCreate", &fn, 10010, 0, &status) == CUDA_SUCCESS);
	check("  a NULL pointer, VERSION_NOT_SUFFICIENT",
	      fn == NULL && status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	int driver = 0;
	cuDriverGetVersion(&driver);
	check("cuGetProcAddress(newer than the driver): INVALID_VALUE",
	      cuGetProcAddress("cuMemAlloc", &fn, driver + 10, 0, &status) ==
		      CUDA_ERROR_INVALID_VALUE);
	check("cuGetProcAddress(the driver's own version) works",
	      cuGetProcAddress("cuMemAlloc", &fn, driver, 0, &status) == CUDA_SUCCESS && fn &&
		      status == CU_GET_PROC_ADDRESS_SUCCESS);

	enum cudaDriverEntryPointQueryResult found = 99;
	fn = (void *)1;
	check("cudaGetDriverEntryPointByVersion(unknown name): cudaSuccess",
	      cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &fn, 12000, cudaEnableDefault,
					       &found) == cudaSuccess &&
		      fn == NULL && found == cudaDriverEntryPointSymbolNotFound);
	check("cudaGetDriverEntryPointByVersion(newer than the driver)",
	      cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, (unsigned)driver + 10,
					       cudaEnableDefault, &found) == cudaErrorInvalidValue);
	check("  is the last error",
	      cudaGetLastError() == cudaErrorInvalidValue && cudaGetLastError() == cudaSuccess);
	check("cudaGetDriverEntryPointByVersion(UINT_MAX)",
	      cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, ~0u, cudaEnableDefault, &found) ==
		      cudaErrorInvalidValue);
	cudaGetLastError();
}

static size_t device_free(void)
{
	size_t free = 0, total = 0;
	cuMemGetInfo(&free, &total);
	return free;
}

static void virtual_memory(void)
{
	CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
				    .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
	size_t granularity = 0;
	cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	CUmemGenericAllocationHandle handle, again = 0;
	CUdeviceptr base;
	size_t before = device_free();
	cuMemCreate(&handle, 2 * granularity, &prop, 0);
	cuMemAddressReserve(&base, 4 * granularity, 0, 0, 0);
	check("cuMemMap at an address off the granularity",
	      cuMemMap(base + 4096, granularity, 0, handle, 0) == CUDA_ERROR_INVALID_VALUE);
	check("cuMemMap of a size off the granularity",
	      cuMemMap(base, granularity + 4096, 0, handle, 0) == CUDA_ERROR_INVALID_VALUE);
	check("cuMemMap at an offset off the granularity",
	      cuMemMap(base, granularity, 4096, handle, 0) == CUDA_ERROR_INVALID_VALUE);
	check("cuMemMap", cuMemMap(base, 2 * granularity, 0, handle, 0) == CUDA_SUCCESS);
	check("cuMemMap over part of that mapping",
	      cuMemMap(base + granularity, 2 * granularity, 0, handle, 0) ==
		      CUDA_ERROR_INVALID_VALUE);
	check("cuMemRelease while mapped", cuMemRelease(handle) == CUDA_SUCCESS);
	check("cuMemRetainAllocationHandle from the mapping",
	      cuMemRetainAllocationHandle(&again, (void *)(base + 10)) == CUDA_SUCCESS &&
		      again == handle);
	check("  released again", cuMemRelease(again) == CUDA_SUCCESS);
	check("  but not a third time", cuMemRelease(again) == CUDA_ERROR_INVALID_VALUE);
	check("still held while mapped", device_free() == before - 2 * granularity);
	check("cuMemUnmap", cuMemUnmap(base, 2 * granularity) == CUDA_SUCCESS);
	check("gives the memory back", device_free() == before);
	check("cuMemAddressFree", cuMemAddressFree(base, 4 * granularity) == CUDA_SUCCESS);
}

int main(void)
{
	if (cuInit(0) != CUDA_SUCCESS)
		return 1;
	released_primary_context();
	entry_points();
	CUcontext context;
	cuDevicePrimaryCtxRetain(&context, 0);
	cuCtxSetCurrent(context);
	virtual_memory();
	cuDevicePrimaryCtxRelease(0);
	printf("%d failed\n", failures);
	return failures != 0;
}
