/* A program that looks for the driver, closes it, and loads it again for
 * its work, as availability probes before a framework's own loading do;
 * meanwhile something else took the address range the first load had, so
 * the driver comes back at another. Both phases allocate through dlsym and
 * through cuGetProcAddress. */
#define _GNU_SOURCE
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <sys/mman.h>

static int work(void *driver, size_t mib)
{
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
	    retain(&context, 0) || set_current(context) || by_name(&a, mib << 20) ||
	    by_version(&b, 2 * mib << 20))
		return 1;
	return 0;
}

int main(void)
{
	void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	struct link_map *map = NULL;
	if (!driver || dlinfo(driver, RTLD_DI_LINKMAP, &map) || !dlsym(driver, "cuMemAlloc_v2") ||
	    !dlsym(driver, "cuGetProcAddress_v2"))
		return 1;
	void *old_base = (void *)map->l_addr;
	dlclose(driver);
	/* Where the driver was, if it went: a later load must go elsewhere. */
	void *taken = mmap(old_base, 4096, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!driver || work(driver, 8))
		return 2;
	if (taken != MAP_FAILED)
		munmap(taken, 4096);
	puts("reopen_driver: ok");
	return 0;
}
