/* Stand-in driver: cuGetProcAddress, the way the real libcudart reaches
 * every driver function. A base name may have several ABIs; a request gets
 * the newest one its version allows, and the per-thread-stream flavour when
 * asked for one that exists. */
#include <string.h>

#include "sim.h"

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *, size_t, CUstream);
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
CUresult cuMemFreeAsync_ptsz(CUdeviceptr, CUstream);
CUresult cuGraphLaunch_ptsz(CUgraphExec, CUstream);
CUresult cuStreamBeginCapture_v2_ptsz(CUstream, CUstreamCaptureMode);
CUresult cuStreamEndCapture_ptsz(CUstream, CUgraph *);
CUresult cuStreamIsCapturing_ptsz(CUstream, CUstreamCaptureStatus *);
#undef cuEventElapsedTime
CUresult cuEventElapsedTime(float *, CUevent, CUevent);
#undef cuGetProcAddress
CUresult cuGetProcAddress(const char *, void **, int, cuuint64_t);
#undef cuIpcOpenMemHandle
CUresult cuIpcOpenMemHandle(CUdeviceptr *, CUipcMemHandle, unsigned int);

struct entry_point {
	const char *name; /* the base name, as cuGetProcAddress takes it */
	int version;      /* the first CUDA version with this ABI */
	void *legacy;
	void *per_thread; /* NULL when the function has no _ptsz/_ptds flavour */
};

/* clang-format off */
#define ENTRY(name, version, fn)           {name, version, (void *)(fn), NULL}
#define ENTRY_PT(name, version, fn, pt_fn) {name, version, (void *)(fn), (void *)(pt_fn)}
/* clang-format on */

/* Sorted by name, then version, newest last. */
static const struct entry_point entry_points[] = {
	ENTRY("cuArray3DCreate", 3020, cuArray3DCreate_v2),
	ENTRY("cuArrayCreate", 3020, cuArrayCreate_v2),
	ENTRY("cuArrayDestroy", 2000, cuArrayDestroy),
	ENTRY("cuArrayGetMemoryRequirements", 11060, cuArrayGetMemoryRequirements),
	ENTRY("cuCtxCreate", 12050, cuCtxCreate_v4),
	ENTRY("cuCtxDestroy", 4000, cuCtxDestroy_v2),
	ENTRY("cuCtxGetCurrent", 4000, cuCtxGetCurrent),
	ENTRY("cuCtxGetDevice", 2000, cuCtxGetDevice),
	ENTRY("cuCtxGetDevice", 13000, cuCtxGetDevice_v2),
	ENTRY("cuCtxPopCurrent", 4000, cuCtxPopCurrent_v2),
	ENTRY("cuCtxPushCurrent", 4000, cuCtxPushCurrent_v2),
	ENTRY("cuCtxSetCurrent", 4000, cuCtxSetCurrent),
	ENTRY("cuCtxSynchronize", 2000, cuCtxSynchronize),
	ENTRY("cuCtxSynchronize", 13000, cuCtxSynchronize_v2),
	ENTRY("cuDeviceGet", 2000, cuDeviceGet),
	ENTRY("cuDeviceGetAttribute", 2000, cuDeviceGetAttribute),
	ENTRY("cuDeviceGetCount", 2000, cuDeviceGetCount),
	ENTRY("cuDeviceGetDefaultMemPool", 11020, cuDeviceGetDefaultMemPool),
	ENTRY("cuDeviceGetMemPool", 11020, cuDeviceGetMemPool),
	ENTRY("cuDeviceGetGraphMemAttribute", 11040, cuDeviceGetGraphMemAttribute),
	ENTRY("cuDeviceGetName", 2000, cuDeviceGetName),
	ENTRY("cuDeviceGraphMemTrim", 11040, cuDeviceGraphMemTrim),
	ENTRY("cuDeviceSetGraphMemAttribute", 11040, cuDeviceSetGraphMemAttribute),
	ENTRY("cuDeviceSetMemPool", 11020, cuDeviceSetMemPool),
	ENTRY("cuDeviceGetPCIBusId", 4010, cuDeviceGetPCIBusId),
	ENTRY("cuDeviceGetUuid", 11040, cuDeviceGetUuid_v2),
	ENTRY("cuDevicePrimaryCtxGetState", 7000, cuDevicePrimaryCtxGetState),
	ENTRY("cuDevicePrimaryCtxRelease", 11000, cuDevicePrimaryCtxRelease_v2),
	ENTRY("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain),
	ENTRY("cuDeviceTotalMem", 3020, cuDeviceTotalMem_v2),
	ENTRY("cuDestroyExternalMemory", 10000, cuDestroyExternalMemory),
	ENTRY("cuDriverGetVersion", 2020, cuDriverGetVersion),
	ENTRY("cuEventCreate", 2000, cuEventCreate),
	ENTRY("cuEventDestroy", 4000, cuEventDestroy_v2),
	ENTRY("cuEventElapsedTime", 2000, cuEventElapsedTime),
	ENTRY("cuEventElapsedTime", 12080, cuEventElapsedTime_v2),
	ENTRY("cuEventQuery", 2000, cuEventQuery),
	ENTRY("cuEventRecord", 2000, cuEventRecord),
	ENTRY("cuEventSynchronize", 2000, cuEventSynchronize),
	ENTRY("cuExternalMemoryGetMappedBuffer", 10000, cuExternalMemoryGetMappedBuffer),
	ENTRY("cuExternalMemoryGetMappedMipmappedArray", 10000,
	      cuExternalMemoryGetMappedMipmappedArray),
	ENTRY("cuGetErrorName", 6000, cuGetErrorName),
	ENTRY("cuGetErrorString", 6000, cuGetErrorString),
	ENTRY("cuGetExportTable", 3000, cuGetExportTable),
	ENTRY("cuGetProcAddress", 11030, cuGetProcAddress),
	ENTRY("cuGetProcAddress", 12000, cuGetProcAddress_v2),
	ENTRY("cuGraphAddMemAllocNode", 11040, cuGraphAddMemAllocNode),
	ENTRY("cuGraphAddMemFreeNode", 11040, cuGraphAddMemFreeNode),
	ENTRY("cuGraphCreate", 10000, cuGraphCreate),
	ENTRY("cuGraphDestroy", 10000, cuGraphDestroy),
	ENTRY("cuGraphExecDestroy", 10000, cuGraphExecDestroy),
	ENTRY("cuGraphInstantiateWithFlags", 11040, cuGraphInstantiateWithFlags),
	ENTRY_PT("cuGraphLaunch", 10000, cuGraphLaunch, cuGraphLaunch_ptsz),
	ENTRY("cuImportExternalMemory", 10000, cuImportExternalMemory),
	ENTRY("cuInit", 2000, cuInit),
	ENTRY("cuIpcCloseMemHandle", 4010, cuIpcCloseMemHandle),
	ENTRY("cuIpcGetMemHandle", 4010, cuIpcGetMemHandle),
	ENTRY("cuIpcOpenMemHandle", 4010, cuIpcOpenMemHandle),
	ENTRY("cuIpcOpenMemHandle", 11000, cuIpcOpenMemHandle_v2),
	ENTRY("cuLaunchKernel", 4000, cuLaunchKernel),
	ENTRY("cuMemAddressFree", 10020, cuMemAddressFree),
	ENTRY("cuMemAddressReserve", 10020, cuMemAddressReserve),
	ENTRY("cuMemAlloc", 3020, cuMemAlloc_v2),
	ENTRY_PT("cuMemAllocAsync", 11020, cuMemAllocAsync, cuMemAllocAsync_ptsz),
	ENTRY_PT("cuMemAllocFromPoolAsync", 11020, cuMemAllocFromPoolAsync,
		 cuMemAllocFromPoolAsync_ptsz),
	ENTRY("cuMemAllocHost", 3020, cuMemAllocHost_v2),
	ENTRY("cuMemAllocManaged", 6000, cuMemAllocManaged),
	ENTRY("cuMemAllocPitch", 3020, cuMemAllocPitch_v2),
	ENTRY("cuMemCreate", 10020, cuMemCreate),
	ENTRY("cuMemFree", 3020, cuMemFree_v2),
	ENTRY_PT("cuMemFreeAsync", 11020, cuMemFreeAsync, cuMemFreeAsync_ptsz),
	ENTRY("cuMemFreeHost", 2000, cuMemFreeHost),
	ENTRY("cuMemGetAddressRange", 3020, cuMemGetAddressRange_v2),
	ENTRY("cuMemGetAllocationGranularity", 10020, cuMemGetAllocationGranularity),
	ENTRY("cuMemGetInfo", 3020, cuMemGetInfo_v2),
	ENTRY("cuMemHostAlloc", 2020, cuMemHostAlloc),
	ENTRY("cuMemHostGetDevicePointer", 3020, cuMemHostGetDevicePointer_v2),
	ENTRY("cuMemHostRegister", 6050, cuMemHostRegister_v2),
	ENTRY("cuMemHostUnregister", 4000, cuMemHostUnregister),
	ENTRY("cuMemMap", 10020, cuMemMap),
	ENTRY("cuMemPoolCreate", 11020, cuMemPoolCreate),
	ENTRY("cuMemPoolDestroy", 11020, cuMemPoolDestroy),
	ENTRY("cuMemPoolExportPointer", 11020, cuMemPoolExportPointer),
	ENTRY("cuMemPoolExportToShareableHandle", 11020, cuMemPoolExportToShareableHandle),
	ENTRY("cuMemPoolGetAttribute", 11020, cuMemPoolGetAttribute),
	ENTRY("cuMemPoolImportFromShareableHandle", 11020, cuMemPoolImportFromShareableHandle),
	ENTRY("cuMemPoolImportPointer", 11020, cuMemPoolImportPointer),
	ENTRY("cuMemPoolSetAttribute", 11020, cuMemPoolSetAttribute),
	ENTRY("cuMemPoolTrimTo", 11020, cuMemPoolTrimTo),
	ENTRY("cuMemRelease", 10020, cuMemRelease),
	ENTRY("cuMemSetAccess", 10020, cuMemSetAccess),
	ENTRY("cuMemUnmap", 10020, cuMemUnmap),
	ENTRY("cuMemcpy", 4000, cuMemcpy),
	ENTRY("cuMemcpyAsync", 4000, cuMemcpyAsync),
	ENTRY("cuMemcpyDtoD", 3020, cuMemcpyDtoD_v2),
	ENTRY("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2),
	ENTRY("cuMemcpyDtoHAsync", 3020, cuMemcpyDtoHAsync_v2),
	ENTRY("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2),
	ENTRY("cuMemcpyHtoDAsync", 3020, cuMemcpyHtoDAsync_v2),
	ENTRY("cuMemsetD32", 3020, cuMemsetD32_v2),
	ENTRY("cuMemsetD32Async", 3020, cuMemsetD32Async),
	ENTRY("cuMemsetD8", 3020, cuMemsetD8_v2),
	ENTRY("cuMemsetD8Async", 3020, cuMemsetD8Async),
	ENTRY("cuMipmappedArrayCreate", 5000, cuMipmappedArrayCreate),
	ENTRY("cuMulticastAddDevice", 12010, cuMulticastAddDevice),
	ENTRY("cuMulticastBindMem", 12010, cuMulticastBindMem),
	ENTRY("cuMulticastCreate", 12010, cuMulticastCreate),
	ENTRY("cuMulticastGetGranularity", 12010, cuMulticastGetGranularity),
	ENTRY("cuMulticastUnbind", 12010, cuMulticastUnbind),
	ENTRY("cuMipmappedArrayDestroy", 5000, cuMipmappedArrayDestroy),
	ENTRY("cuMipmappedArrayGetMemoryRequirements", 11060,
	      cuMipmappedArrayGetMemoryRequirements),
	ENTRY("cuModuleLoadData", 2000, cuModuleLoadData),
	ENTRY("cuModuleUnload", 2000, cuModuleUnload),
	ENTRY("cuPointerGetAttribute", 4000, cuPointerGetAttribute),
	ENTRY_PT("cuStreamBeginCapture", 10010, cuStreamBeginCapture_v2,
		 cuStreamBeginCapture_v2_ptsz),
	ENTRY("cuStreamCreate", 2000, cuStreamCreate),
	ENTRY("cuStreamCreateWithPriority", 5050, cuStreamCreateWithPriority),
	ENTRY("cuStreamDestroy", 4000, cuStreamDestroy_v2),
	ENTRY_PT("cuStreamEndCapture", 10000, cuStreamEndCapture, cuStreamEndCapture_ptsz),
	ENTRY_PT("cuStreamIsCapturing", 10000, cuStreamIsCapturing, cuStreamIsCapturing_ptsz),
	ENTRY("cuStreamQuery", 2000, cuStreamQuery),
	ENTRY("cuStreamSynchronize", 2000, cuStreamSynchronize),
};

static void set_status(CUdriverProcAddressQueryResult *status, CUdriverProcAddressQueryResult value)
{
	if (status)
		*status = value;
}

static CUresult lookup(const char *symbol, void **pfn, int version, cuuint64_t flags,
		       CUdriverProcAddressQueryResult *status)
{
	if (!symbol || !pfn)
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = NULL;
	const struct entry_point *best = NULL;
	bool known = false;
	for (size_t i = 0; i < sizeof(entry_points) / sizeof(entry_points[0]); i++) {
		const struct entry_point *entry = &entry_points[i];
		if (strcmp(entry->name, symbol) != 0)
			continue;
		known = true;
		if (entry->version <= version)
			best = entry;
	}
	if (!best) {
		set_status(status, known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
					 : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
		return CUDA_ERROR_NOT_FOUND;
	}
	bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
	*pfn = per_thread && best->per_thread ? best->per_thread : best->legacy;
	set_status(status, CU_GET_PROC_ADDRESS_SUCCESS);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
					cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
	return lookup(symbol, pfn, version, flags, status);
}

SIM_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	return lookup(symbol, pfn, version, flags, NULL);
}
