/* The stand-in runtime's shared state. Like the real libcudart 13 it never
 * links the driver: it opens libcuda.so.1, asks it for cuGetProcAddress_v2
 * once, and gets every other driver function through that. */
#pragma once

#include <cuda.h>
#include <cudaProfilerTypedefs.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <cupti.h> /* ids and parameter structs for RT_TRACED */
#include <stdbool.h>

#include "cupti_link.h"

#define RT_EXPORT __attribute__((visibility("default")))

/* Index into the per-stream-flavour pairs below. */
enum rt_stream_mode {
	RT_LEGACY_STREAM,
	RT_PER_THREAD_STREAM,
};

struct rt_driver {
	PFN_cuGetProcAddress_v12000 cuGetProcAddress;
	PFN_cuInit_v2000 cuInit;
	PFN_cuDriverGetVersion_v2020 cuDriverGetVersion;
	PFN_cuGetExportTable_v3000 cuGetExportTable;
	PFN_cuDeviceGetCount_v2000 cuDeviceGetCount;
	PFN_cuDeviceGet_v2000 cuDeviceGet;
	PFN_cuDeviceGetName_v2000 cuDeviceGetName;
	PFN_cuDeviceTotalMem_v3020 cuDeviceTotalMem;
	PFN_cuDeviceGetAttribute_v2000 cuDeviceGetAttribute;
	PFN_cuDeviceGetPCIBusId_v4010 cuDeviceGetPCIBusId;
	PFN_cuDeviceGetUuid_v11040 cuDeviceGetUuid;
	PFN_cuDevicePrimaryCtxRetain_v7000 cuDevicePrimaryCtxRetain;
	PFN_cuDevicePrimaryCtxReset_v11000 cuDevicePrimaryCtxReset;
	PFN_cuCtxGetCurrent_v4000 cuCtxGetCurrent;
	PFN_cuCtxSetCurrent_v4000 cuCtxSetCurrent;
	PFN_cuCtxSynchronize_v2000 cuCtxSynchronize;
	PFN_cuCtxGetDevice_v2000 cuCtxGetDevice;
	PFN_cuMemAlloc_v3020 cuMemAlloc;
	PFN_cuMemAllocPitch_v3020 cuMemAllocPitch;
	PFN_cuMemFree_v3020 cuMemFree;
	PFN_cuMemAllocManaged_v6000 cuMemAllocManaged;
	PFN_cuMemHostAlloc_v2020 cuMemHostAlloc;
	PFN_cuMemFreeHost_v2000 cuMemFreeHost;
	PFN_cuMemHostRegister_v6050 cuMemHostRegister;
	PFN_cuMemHostUnregister_v4000 cuMemHostUnregister;
	PFN_cuMemHostGetDevicePointer_v3020 cuMemHostGetDevicePointer;
	PFN_cuPointerGetAttribute_v4000 cuPointerGetAttribute;
	PFN_cuMemAllocAsync_v11020 cuMemAllocAsync[2];
	PFN_cuMemAllocFromPoolAsync_v11020 cuMemAllocFromPoolAsync[2];
	PFN_cuMemFreeAsync_v11020 cuMemFreeAsync[2];
	PFN_cuDeviceGetDefaultMemPool_v11020 cuDeviceGetDefaultMemPool;
	PFN_cuDeviceGetMemPool_v11020 cuDeviceGetMemPool;
	PFN_cuDeviceSetMemPool_v11020 cuDeviceSetMemPool;
	PFN_cuMemPoolCreate_v11020 cuMemPoolCreate;
	PFN_cuMemPoolDestroy_v11020 cuMemPoolDestroy;
	PFN_cuMemPoolTrimTo_v11020 cuMemPoolTrimTo;
	PFN_cuMemPoolGetAttribute_v11020 cuMemPoolGetAttribute;
	PFN_cuMemPoolSetAttribute_v11020 cuMemPoolSetAttribute;
	PFN_cuMemPoolExportToShareableHandle_v11020 cuMemPoolExportToShareableHandle;
	PFN_cuMemPoolImportFromShareableHandle_v11020 cuMemPoolImportFromShareableHandle;
	PFN_cuMemPoolExportPointer_v11020 cuMemPoolExportPointer;
	PFN_cuMemPoolImportPointer_v11020 cuMemPoolImportPointer;
	PFN_cuMemGetInfo_v3020 cuMemGetInfo;
	PFN_cuArray3DCreate_v3020 cuArray3DCreate;
	PFN_cuArrayDestroy_v2000 cuArrayDestroy;
	PFN_cuMipmappedArrayCreate_v5000 cuMipmappedArrayCreate;
	PFN_cuMipmappedArrayDestroy_v5000 cuMipmappedArrayDestroy;
	PFN_cuArrayGetMemoryRequirements_v11060 cuArrayGetMemoryRequirements;
	PFN_cuMipmappedArrayGetMemoryRequirements_v11060 cuMipmappedArrayGetMemoryRequirements;
	PFN_cuGraphCreate_v10000 cuGraphCreate;
	PFN_cuGraphDestroy_v10000 cuGraphDestroy;
	PFN_cuGraphAddMemAllocNode_v11040 cuGraphAddMemAllocNode;
	PFN_cuGraphAddMemFreeNode_v11040 cuGraphAddMemFreeNode;
	PFN_cuGraphInstantiateWithFlags_v11040 cuGraphInstantiateWithFlags;
	PFN_cuGraphLaunch_v10000 cuGraphLaunch[2];
	PFN_cuGraphUpload_v11010 cuGraphUpload[2];
	PFN_cuGraphExecDestroy_v10000 cuGraphExecDestroy;
	PFN_cuDeviceGraphMemTrim_v11040 cuDeviceGraphMemTrim;
	PFN_cuDeviceGetGraphMemAttribute_v11040 cuDeviceGetGraphMemAttribute;
	PFN_cuDeviceSetGraphMemAttribute_v11040 cuDeviceSetGraphMemAttribute;
	PFN_cuImportExternalMemory_v10000 cuImportExternalMemory;
	PFN_cuExternalMemoryGetMappedBuffer_v10000 cuExternalMemoryGetMappedBuffer;
	PFN_cuExternalMemoryGetMappedMipmappedArray_v10000 cuExternalMemoryGetMappedMipmappedArray;
	PFN_cuDestroyExternalMemory_v10000 cuDestroyExternalMemory;
	PFN_cuIpcGetMemHandle_v4010 cuIpcGetMemHandle;
	PFN_cuIpcOpenMemHandle_v11000 cuIpcOpenMemHandle;
	PFN_cuIpcCloseMemHandle_v4010 cuIpcCloseMemHandle;
	PFN_cuMemcpy_v4000 cuMemcpy;
	PFN_cuMemcpyHtoD_v3020 cuMemcpyHtoD;
	PFN_cuMemcpyDtoH_v3020 cuMemcpyDtoH;
	PFN_cuMemcpyDtoD_v3020 cuMemcpyDtoD;
	PFN_cuMemsetD8_v3020 cuMemsetD8;
	PFN_cuStreamCreate_v2000 cuStreamCreate;
	PFN_cuStreamDestroy_v4000 cuStreamDestroy;
	PFN_cuStreamSynchronize_v2000 cuStreamSynchronize;
	PFN_cuStreamQuery_v2000 cuStreamQuery;
	PFN_cuStreamBeginCapture_v10010 cuStreamBeginCapture[2];
	PFN_cuStreamEndCapture_v10000 cuStreamEndCapture[2];
	PFN_cuStreamIsCapturing_v10000 cuStreamIsCapturing[2];
	PFN_cuEventCreate_v2000 cuEventCreate;
	PFN_cuEventRecord_v2000 cuEventRecord;
	PFN_cuEventSynchronize_v2000 cuEventSynchronize;
	PFN_cuEventQuery_v2000 cuEventQuery;
	PFN_cuEventElapsedTime_v2000 cuEventElapsedTime;
	PFN_cuEventDestroy_v4000 cuEventDestroy;
	PFN_cuModuleLoadData_v2000 cuModuleLoadData;
	PFN_cuModuleGetFunction_v2000 cuModuleGetFunction;
	PFN_cuLaunchKernel_v4000 cuLaunchKernel[2]; /* per-thread since 7000 */
	;
	PFN_cuFuncGetAttribute_v2020 cuFuncGetAttribute;
	PFN_cuFuncSetAttribute_v9000 cuFuncSetAttribute;
	PFN_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags_v7000
		cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags;
	PFN_cuOccupancyAvailableDynamicSMemPerBlock_v10020 cuOccupancyAvailableDynamicSMemPerBlock;
	PFN_cuProfilerStart_v4000 cuProfilerStart;
	PFN_cuProfilerStop_v4000 cuProfilerStop;
	PFN_cuArray3DGetDescriptor_v3020 cuArray3DGetDescriptor;
	PFN_cuMemcpyHtoA_v3020 cuMemcpyHtoA;
	PFN_cuMemcpyAtoH_v3020 cuMemcpyAtoH;
	PFN_cuMemcpyDtoA_v3020 cuMemcpyDtoA;
	PFN_cuMemcpyAtoD_v3020 cuMemcpyAtoD;
	PFN_cuTexObjectCreate_v5000 cuTexObjectCreate;
	PFN_cuTexObjectDestroy_v5000 cuTexObjectDestroy;
	PFN_cuSurfObjectCreate_v5000 cuSurfObjectCreate;
	PFN_cuSurfObjectDestroy_v5000 cuSurfObjectDestroy;
	PFN_cuGraphAddKernelNode_v12000 cuGraphAddKernelNode;
	PFN_cuGraphAddMemcpyNode_v10000 cuGraphAddMemcpyNode;
	PFN_cuGraphAddMemsetNode_v10000 cuGraphAddMemsetNode;
	PFN_cuGraphAddHostNode_v10000 cuGraphAddHostNode;
	PFN_cuGraphAddEmptyNode_v10000 cuGraphAddEmptyNode;
	PFN_cuGraphGetNodes_v10000 cuGraphGetNodes;
	PFN_cuGraphClone_v10000 cuGraphClone;
	PFN_cuIpcGetEventHandle_v4010 cuIpcGetEventHandle;
	PFN_cuIpcOpenEventHandle_v4010 cuIpcOpenEventHandle;
	PFN_cuStreamWaitEvent_v3020 cuStreamWaitEvent[2];
	PFN_cuStreamCreateWithPriority_v5050 cuStreamCreateWithPriority;
	PFN_cuCtxGetStreamPriorityRange_v5050 cuCtxGetStreamPriorityRange;
	PFN_cuStreamGetFlags_v5050 cuStreamGetFlags;
	PFN_cuStreamGetPriority_v5050 cuStreamGetPriority;
	PFN_cuStreamGetId_v12000 cuStreamGetId;
	PFN_cuStreamGetDevice_v12080 cuStreamGetDevice;
	PFN_cuStreamAttachMemAsync_v6000 cuStreamAttachMemAsync;
	PFN_cuStreamGetCaptureInfo_v12030 cuStreamGetCaptureInfo[2];
	PFN_cuThreadExchangeStreamCaptureMode_v10010 cuThreadExchangeStreamCaptureMode;
	PFN_cuMemPoolSetAccess_v11020 cuMemPoolSetAccess;
	PFN_cuMemPoolGetAccess_v11020 cuMemPoolGetAccess;
	PFN_cuFuncGetName_v12030 cuFuncGetName;
	PFN_cuDeviceCanAccessPeer_v4000 cuDeviceCanAccessPeer;
	PFN_cuDeviceGetP2PAttribute_v8000 cuDeviceGetP2PAttribute;
	PFN_cuCtxEnablePeerAccess_v4000 cuCtxEnablePeerAccess;
	PFN_cuCtxDisablePeerAccess_v4000 cuCtxDisablePeerAccess;
	PFN_cuMemcpy3D_v3020 cuMemcpy3D;
	PFN_cuMemsetD2D8_v3020 cuMemsetD2D8;
	PFN_cuLaunchHostFunc_v10000 cuLaunchHostFunc[2];
	PFN_cuStreamAddCallback_v5000 cuStreamAddCallback[2];
	PFN_cuMemPrefetchAsync_v12020 cuMemPrefetchAsync;
	PFN_cuMemAdvise_v12020 cuMemAdvise;
	PFN_cuMemRangeGetAttribute_v8000 cuMemRangeGetAttribute;
	PFN_cuGraphNodeGetType_v10000 cuGraphNodeGetType;
	PFN_cuGraphGetRootNodes_v10000 cuGraphGetRootNodes;
	PFN_cuGraphKernelNodeGetParams_v12000 cuGraphKernelNodeGetParams;
	PFN_cuGraphKernelNodeSetParams_v12000 cuGraphKernelNodeSetParams;
	PFN_cuGraphExecKernelNodeSetParams_v12000 cuGraphExecKernelNodeSetParams;
	PFN_cuGraphExecUpdate_v12000 cuGraphExecUpdate;
	PFN_cuDeviceGetByPCIBusId_v4010 cuDeviceGetByPCIBusId;
	PFN_cuKernelGetFunction_v12000 cuKernelGetFunction;
	PFN_cuLibraryLoadData_v12000 cuLibraryLoadData;
	PFN_cuLibraryLoadFromFile_v12000 cuLibraryLoadFromFile;
	PFN_cuLibraryUnload_v12000 cuLibraryUnload;
	PFN_cuLibraryGetKernel_v12000 cuLibraryGetKernel;
	PFN_cuLibraryGetKernelCount_v12040 cuLibraryGetKernelCount;
	PFN_cuLibraryEnumerateKernels_v12040 cuLibraryEnumerateKernels;
};

extern struct rt_driver rt_driver;

/* Loads the driver once; cudaSuccess or why it cannot be used. */
cudaError_t rt_init(void);
/* rt_init, then makes the calling thread's device's primary context
 * current, as every runtime call that touches a device does. */
cudaError_t rt_context(void);
/* Records a failure as the thread's last error and returns it. */
cudaError_t rt_fail(cudaError_t error);
/* Maps a driver result to the runtime's code, recording failures. */
cudaError_t rt_result(CUresult rc);
int rt_current_device(void);
/* Whether host is the shadow of a registered __device__ variable, and its
 * size. */
bool rt_variable(const void *host, size_t *bytes);
/* The host stub nvcc registered for a function the runtime loaded, or the
 * function itself (a library's kernel). */
const void *rt_host_of(CUfunction function);
/* The runtime's own check of a launch: a grid or block beyond the
 * device's limits is an invalid configuration, whatever the kernel. */
bool rt_configuration_fits(dim3 grid, dim3 block);
/* The driver's function for a kernel the program registered (nvcc's
 * host stub), loading its fat binary on first need, or for a library's
 * kernel; the failure recorded (cudaErrorInvalidDeviceFunction for an
 * unknown one) otherwise. */
cudaError_t rt_function(const void *host, CUfunction *out);
/* The driver's format and channel count for a channel description, or
 * false when CUDA has none. */
bool rt_channel_format(const struct cudaChannelFormatDesc *desc, CUarray_format *format,
		       unsigned *channels);
/* The device's primary context, retained once for the process. */
cudaError_t rt_primary_context(int device, CUcontext *context);
/* The bytes of one element of an array (all its channels). */
cudaError_t rt_array_element_bytes(cudaArray_const_t array, size_t *bytes);
/* cudaSuccess when device is a valid ordinal, else the failure recorded. */
cudaError_t rt_check_device(int device);

/* Whether stream is capturing into a graph: its copies and sets are then
 * recorded nowhere (they would run when the graph is launched). */
bool rt_stream_capturing(cudaStream_t stream);

/* CUPTI's view of the runtime: a traced entry point runs its body between
 * an entry and an exit report, which go through the driver's CUPTI table
 * to the subscriber, as the real runtime's do. args is the entry point's
 * struct from generated_cuda_runtime_api_meta.h; id its versioned name. */
void rt_api_report(enum sim_api_site site, struct sim_api_call *call);
#define RT_TRACED(id, args, body)                                                   \
	({                                                                          \
		struct sim_api_call call_ = {.domain = CUPTI_CB_DOMAIN_RUNTIME_API, \
					     .cbid = CUPTI_RUNTIME_TRACE_CBID_##id, \
					     .name = #id,                           \
					     .params = (args)};                     \
		rt_api_report(SIM_API_ENTER, &call_);                               \
		call_.runtime_result = (body);                                      \
		rt_api_report(SIM_API_EXIT, &call_);                                \
		(cudaError_t) call_.runtime_result;                                 \
	})
