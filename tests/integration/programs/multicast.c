/* A multicast object over 8 MiB of physical memory, as NCCL's NVLS sets it
 * up: create the memory and the object, add the device, bind, map the
 * object, then undo it all. The physical 8 MiB is the only memory; the
 * object is shown beside it, never counted again. */
#include <cuda.h>
#include <string.h>

#define MiB (1ull << 20)

int main(void)
{
	CUdevice device;
	CUcontext context;
	if (cuInit(0) || cuDeviceGet(&device, 0) || cuDevicePrimaryCtxRetain(&context, device) ||
	    cuCtxSetCurrent(context))
		return 1;
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	CUmulticastObjectProp multicast_prop;
	memset(&multicast_prop, 0, sizeof(multicast_prop));
	multicast_prop.numDevices = 1;
	multicast_prop.size = 8 * MiB;
	CUmemGenericAllocationHandle memory, multicast;
	CUdeviceptr base;
	if (cuMemCreate(&memory, 8 * MiB, &prop, 0) ||
	    cuMulticastCreate(&multicast, &multicast_prop) ||
	    cuMulticastAddDevice(multicast, device) ||
	    cuMulticastBindMem(multicast, 0, memory, 0, 8 * MiB, 0) ||
	    cuMemAddressReserve(&base, 8 * MiB, 0, 0, 0) ||
	    cuMemMap(base, 8 * MiB, 0, multicast, 0))
		return 1;
	if (cuMemUnmap(base, 8 * MiB) || cuMulticastUnbind(multicast, device, 0, 8 * MiB) ||
	    cuMemRelease(multicast) || cuMemRelease(memory) || cuMemAddressFree(base, 8 * MiB))
		return 1;
	return 0;
}
