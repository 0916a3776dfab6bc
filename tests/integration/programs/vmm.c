/* PyTorch's expandable segments: reserve 1.125x the device's memory as
 * address space, then create, map, unmap and release 20 MiB handles. The
 * reservation is never memory; each handle counts once, until it is both
 * released and unmapped. With an argument, the driver is opened with
 * dlopen and cuMemCreate fetched with dlsym, as NCCL does. */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define MiB (1ull << 20)

static PFN_cuMemCreate_v10020 create = cuMemCreate;

static CUmemGenericAllocationHandle make(size_t bytes)
{
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	CUmemGenericAllocationHandle handle = 0;
	if (create(&handle, bytes, &prop, 0) != CUDA_SUCCESS)
		return 0;
	return handle;
}

int main(int argc, char **argv)
{
	CUdevice device;
	CUcontext context;
	if (cuInit(0) || cuDeviceGet(&device, 0) || cuDevicePrimaryCtxRetain(&context, device) ||
	    cuCtxSetCurrent(context))
		return 1;
	if (argc > 1) {
		void *driver = dlopen("libcuda.so.1", RTLD_NOW);
		create = driver ? (PFN_cuMemCreate_v10020)dlsym(driver, "cuMemCreate") : NULL;
		if (!create)
			return 1;
	}
	size_t total = 0;
	cuDeviceTotalMem(&total, device);
	CUdeviceptr base;
	size_t reserved = total + total / 8;
	if (cuMemAddressReserve(&base, reserved, 0, 0, 0))
		return 1;
	CUmemGenericAllocationHandle a = make(20 * MiB), b = make(20 * MiB), c = make(20 * MiB);
	if (!a || !b || !c)
		return 1;
	if (cuMemMap(base, 20 * MiB, 0, a, 0) || cuMemMap(base + 20 * MiB, 20 * MiB, 0, b, 0) ||
	    cuMemMap(base + 40 * MiB, 20 * MiB, 0, c, 0))
		return 1; /* 60 MiB: the peak */
	memset((void *)base, 7, 60 * MiB);
	if (cuMemRelease(a)) /* still mapped: still counted */
		return 1;
	if (cuMemUnmap(base, 20 * MiB)) /* now a is gone: 40 MiB */
		return 1;
	if (cuMemUnmap(base + 20 * MiB, 20 * MiB) || cuMemRelease(b)) /* 20 MiB */
		return 1;
	if (cuMemRelease(b) != CUDA_ERROR_INVALID_VALUE) /* twice */
		return 1;
	CUmemGenericAllocationHandle d = make(4 * MiB); /* 24 MiB */
	if (!d || cuMemUnmap(base + 40 * MiB, 20 * MiB) || cuMemRelease(c) || cuMemRelease(d))
		return 1; /* back to zero */
	if (cuMemAddressFree(base, reserved))
		return 1;
	printf("vmm: ok\n");
	return 0;
}
