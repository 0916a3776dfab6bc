/* A program that loads the driver into a link-map namespace of its own
 * (dlmopen, as plugin hosts isolating a CUDA backend do) and allocates
 * through dlsym and through cuGetProcAddress. */
#define _GNU_SOURCE
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
	void *driver = dlmopen(LM_ID_NEWLM, "libcuda.so.1", RTLD_NOW);
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
	if (!init || !retain || !set_current || !by_name || !get_proc)
		return 1;
	PFN_cuMemAlloc_v3020 by_version;
	CUdriverProcAddressQueryResult status;
	CUcontext context;
	CUdeviceptr a, b;
	if (get_proc("cuMemAlloc", (void **)&by_version, 12000, 0, &status) || init(0) ||
	    retain(&context, 0) || set_current(context) || by_name(&a, 8 << 20) ||
	    by_version(&b, 16 << 20))
		return 2;
	puts("dlmopen_driver: ok");
	return 0;
}
