/* A program that loads the driver itself, as cuBLAS, Triton or CuPy do,
 * and fetches functions both by ABI name and through cuGetProcAddress. */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
	void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!driver)
		return 1;
	PFN_cuInit_v2000 init = (PFN_cuInit_v2000)dlsym(driver, "cuInit");
	PFN_cuDevicePrimaryCtxRetain_v7000 retain =
		(PFN_cuDevicePrimaryCtxRetain_v7000)dlsym(driver, "cuDevicePrimaryCtxRetain");
	PFN_cuCtxSetCurrent_v4000 set_current =
		(PFN_cuCtxSetCurrent_v4000)dlsym(driver, "cuCtxSetCurrent");
	PFN_cuMemAlloc_v3020 by_name = (PFN_cuMemAlloc_v3020)dlsym(driver, "cuMemAlloc_v2");
	PFN_cuGetProcAddress_v12000 get_proc =
		(PFN_cuGetProcAddress_v12000)dlsym(driver, "cuGetProcAddress_v2");
	CUcontext context;
	if (!init || !retain || !set_current || !by_name || !get_proc)
		return 1;
	if (init(0) || retain(&context, 0) || set_current(context))
		return 1;
	PFN_cuMemAllocAsync_v11020_ptsz async_ptsz;
	PFN_cuMemFree_v3020 mem_free;
	CUdriverProcAddressQueryResult status;
	if (get_proc("cuMemAllocAsync", (void **)&async_ptsz, 12000,
		     CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status) ||
	    get_proc("cuMemFree", (void **)&mem_free, 12000, 0, &status))
		return 1;
	CUdeviceptr a, b;
	if (by_name(&a, 10 << 20) || async_ptsz(&b, 20 << 20, NULL) || mem_free(a))
		return 1;
	puts("dlopen_driver: ok");
	return 0;
}
