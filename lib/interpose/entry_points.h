/* The one list of the CUDA entry points vramtrace catches. The hook table
 * (hooks.c), the exported wrappers (wrappers.c, runtime_names.c) and the
 * export map (vramtrace.map, written at build time) are all expanded from
 * it, so an entry point is added by one line here and its observer in
 * lib/sources; a line without an observer fails the link, an observer
 * without a line fails the exports test.
 *
 * Driver entry points whose calls are observed:
 *   X(base, version, abi, (parameters), (arguments))
 *   X_PT(base, version, abi, abi_per_thread, (parameters), (arguments))
 * base and version are what cuGetProcAddress asks for (the ABI's first CUDA
 * version); abi is the exported symbol, abi_per_thread its per-thread
 * default stream flavour. The parameters are cuda.h's, which the compiler
 * holds each wrapper to; the arguments pass them on, in the order of
 * CUPTI's <abi>_params struct. The ABIs of one base name go oldest first.
 *
 * This header includes nothing: it is expanded both in C and, for the
 * export map, by the preprocessor alone. */
#pragma once

/* clang-format off */
#define VT_DRIVER_ENTRY_POINTS(X, X_PT) \
	X("cuArray3DCreate", 3020, cuArray3DCreate_v2, \
	  (CUarray *handle, const CUDA_ARRAY3D_DESCRIPTOR *desc), (handle, desc)) \
	X("cuArrayCreate", 3020, cuArrayCreate_v2, \
	  (CUarray *handle, const CUDA_ARRAY_DESCRIPTOR *desc), (handle, desc)) \
	X("cuArrayDestroy", 2000, cuArrayDestroy, (CUarray handle), (handle)) \
	X("cuCtxCreate", 2000, cuCtxCreate, \
	  (CUcontext *context, unsigned int flags, CUdevice device), (context, flags, device)) \
	X("cuCtxCreate", 3020, cuCtxCreate_v2, \
	  (CUcontext *context, unsigned int flags, CUdevice device), (context, flags, device)) \
	X("cuCtxCreate", 11040, cuCtxCreate_v3, \
	  (CUcontext *context, CUexecAffinityParam *affinity, int count, unsigned int flags, \
	   CUdevice device), \
	  (context, affinity, count, flags, device)) \
	X("cuCtxCreate", 12050, cuCtxCreate_v4, \
	  (CUcontext *context, CUctxCreateParams *create_params, unsigned int flags, CUdevice device), \
	  (context, create_params, flags, device)) \
	X("cuCtxDestroy", 2000, cuCtxDestroy, (CUcontext context), (context)) \
	X("cuCtxDestroy", 4000, cuCtxDestroy_v2, (CUcontext context), (context)) \
	X("cuDevicePrimaryCtxRelease", 7000, cuDevicePrimaryCtxRelease, (CUdevice device), \
	  (device)) \
	X("cuDevicePrimaryCtxRelease", 11000, cuDevicePrimaryCtxRelease_v2, (CUdevice device), \
	  (device)) \
	X("cuDevicePrimaryCtxReset", 7000, cuDevicePrimaryCtxReset, (CUdevice device), (device)) \
	X("cuDevicePrimaryCtxReset", 11000, cuDevicePrimaryCtxReset_v2, (CUdevice device), (device)) \
	X("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain, \
	  (CUcontext *context, CUdevice device), (context, device)) \
	X("cuDeviceSetMemPool", 11020, cuDeviceSetMemPool, (CUdevice device, CUmemoryPool pool), \
	  (device, pool)) \
	X("cuDeviceGraphMemTrim", 11040, cuDeviceGraphMemTrim, (CUdevice device), (device)) \
	X("cuExternalMemoryGetMappedBuffer", 10000, cuExternalMemoryGetMappedBuffer, \
	  (CUdeviceptr *dptr, CUexternalMemory external, const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *desc), \
	  (dptr, external, desc)) \
	X("cuExternalMemoryGetMappedMipmappedArray", 10000, cuExternalMemoryGetMappedMipmappedArray, \
	  (CUmipmappedArray *array, CUexternalMemory external, \
	   const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *desc), \
	  (array, external, desc)) \
	X("cuGraphAddMemAllocNode", 11040, cuGraphAddMemAllocNode, \
	  (CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies, size_t count, \
	   CUDA_MEM_ALLOC_NODE_PARAMS *node_params), \
	  (node, graph, dependencies, count, node_params)) \
	X_PT("cuGraphLaunch", 10000, cuGraphLaunch, cuGraphLaunch_ptsz, \
	     (CUgraphExec exec, CUstream stream), (exec, stream)) \
	X_PT("cuGraphUpload", 11010, cuGraphUpload, cuGraphUpload_ptsz, \
	     (CUgraphExec exec, CUstream stream), (exec, stream)) \
	X("cuInit", 2000, cuInit, (unsigned int flags), (flags)) \
	X("cuIpcCloseMemHandle", 4010, cuIpcCloseMemHandle, (CUdeviceptr dptr), (dptr)) \
	X("cuIpcOpenMemHandle", 4010, cuIpcOpenMemHandle, \
	  (CUdeviceptr *dptr, CUipcMemHandle handle, unsigned int flags), (dptr, handle, flags)) \
	X("cuIpcOpenMemHandle", 11000, cuIpcOpenMemHandle_v2, \
	  (CUdeviceptr *dptr, CUipcMemHandle handle, unsigned int flags), (dptr, handle, flags)) \
	X("cuMemAlloc", 3020, cuMemAlloc_v2, (CUdeviceptr *dptr, size_t bytes), (dptr, bytes)) \
	X("cuMemCreate", 10020, cuMemCreate, \
	  (CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop, \
	   unsigned long long flags), \
	  (handle, size, prop, flags)) \
	X("cuMemMap", 10020, cuMemMap, \
	  (CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, \
	   unsigned long long flags), \
	  (ptr, size, offset, handle, flags)) \
	X("cuMemRelease", 10020, cuMemRelease, (CUmemGenericAllocationHandle handle), (handle)) \
	X("cuMemUnmap", 10020, cuMemUnmap, (CUdeviceptr ptr, size_t size), (ptr, size)) \
	X_PT("cuMemAllocAsync", 11020, cuMemAllocAsync, cuMemAllocAsync_ptsz, \
	     (CUdeviceptr *dptr, size_t bytes, CUstream stream), (dptr, bytes, stream)) \
	X_PT("cuMemAllocFromPoolAsync", 11020, cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync_ptsz, \
	     (CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool, CUstream stream), \
	     (dptr, bytes, pool, stream)) \
	X("cuMemAllocHost", 3020, cuMemAllocHost_v2, (void **pp, size_t bytes), (pp, bytes)) \
	X("cuMemAllocManaged", 6000, cuMemAllocManaged, \
	  (CUdeviceptr *dptr, size_t bytes, unsigned int flags), (dptr, bytes, flags)) \
	X("cuMemAllocPitch", 3020, cuMemAllocPitch_v2, \
	  (CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height, unsigned int element_bytes), \
	  (dptr, pitch, width, height, element_bytes)) \
	X("cuMemFree", 3020, cuMemFree_v2, (CUdeviceptr dptr), (dptr)) \
	X_PT("cuMemFreeAsync", 11020, cuMemFreeAsync, cuMemFreeAsync_ptsz, \
	     (CUdeviceptr dptr, CUstream stream), (dptr, stream)) \
	X("cuMemFreeHost", 2000, cuMemFreeHost, (void *p), (p)) \
	X("cuMemHostAlloc", 2020, cuMemHostAlloc, (void **pp, size_t bytes, unsigned int flags), \
	  (pp, bytes, flags)) \
	X("cuMemHostRegister", 4000, cuMemHostRegister, (void *p, size_t bytes, unsigned int flags), \
	  (p, bytes, flags)) \
	X("cuMemHostRegister", 6050, cuMemHostRegister_v2, \
	  (void *p, size_t bytes, unsigned int flags), (p, bytes, flags)) \
	X("cuMemHostUnregister", 4000, cuMemHostUnregister, (void *p), (p)) \
	X("cuMipmappedArrayCreate", 5000, cuMipmappedArrayCreate, \
	  (CUmipmappedArray *handle, const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned int levels), \
	  (handle, desc, levels)) \
	X("cuMipmappedArrayDestroy", 5000, cuMipmappedArrayDestroy, (CUmipmappedArray handle), \
	  (handle)) \
	X("cuMulticastCreate", 12010, cuMulticastCreate, \
	  (CUmemGenericAllocationHandle *handle, const CUmulticastObjectProp *prop), (handle, prop)) \
	X("cuMemPoolCreate", 11020, cuMemPoolCreate, \
	  (CUmemoryPool *pool, const CUmemPoolProps *props), (pool, props)) \
	X("cuMemPoolImportPointer", 11020, cuMemPoolImportPointer, \
	  (CUdeviceptr *dptr, CUmemoryPool pool, CUmemPoolPtrExportData *data), (dptr, pool, data)) \
	X("cuMemPoolDestroy", 11020, cuMemPoolDestroy, (CUmemoryPool pool), (pool)) \
	X("cuMemPoolTrimTo", 11020, cuMemPoolTrimTo, (CUmemoryPool pool, size_t keep), (pool, keep)) \
	X_PT("cuStreamBeginCapture", 10000, cuStreamBeginCapture, cuStreamBeginCapture_ptsz, \
	     (CUstream stream), (stream)) \
	X_PT("cuStreamBeginCapture", 10010, cuStreamBeginCapture_v2, cuStreamBeginCapture_v2_ptsz, \
	     (CUstream stream, CUstreamCaptureMode mode), (stream, mode)) \
	X_PT("cuStreamBeginCaptureToGraph", 12030, cuStreamBeginCaptureToGraph, \
	     cuStreamBeginCaptureToGraph_ptsz, \
	     (CUstream stream, CUgraph graph, const CUgraphNode *dependencies, \
	      const CUgraphEdgeData *edges, size_t count, CUstreamCaptureMode mode), \
	     (stream, graph, dependencies, edges, count, mode))

/* The entry points themselves: cuGetProcAddress is wrapped so that every
 * function it hands out is a hook (procaddr.c); nothing to observe.
 *   U(base, version, abi) */
#define VT_PLAIN_ENTRY_POINTS(U) \
	U("cuGetProcAddress", 11030, cuGetProcAddress) \
	U("cuGetProcAddress", 12000, cuGetProcAddress_v2)

/* Runtime functions, wrapped only to name the driver call beneath them
 * (cudaMalloc for the cuMemAlloc_v2 it makes), which the driver's observer
 * records:
 *   R(name, (parameters), (arguments)) */
#define VT_RUNTIME_ENTRY_POINTS(R) \
	R(cudaMalloc, (void **ptr, size_t size), (ptr, size)) \
	R(cudaMallocPitch, (void **ptr, size_t *pitch, size_t width, size_t height), \
	  (ptr, pitch, width, height)) \
	R(cudaMalloc3D, (struct cudaPitchedPtr *pitched, struct cudaExtent extent), (pitched, extent)) \
	R(cudaMallocManaged, (void **ptr, size_t size, unsigned int flags), (ptr, size, flags)) \
	R(cudaMallocHost, (void **ptr, size_t size), (ptr, size)) \
	R(cudaHostAlloc, (void **ptr, size_t size, unsigned int flags), (ptr, size, flags)) \
	R(cudaFree, (void *ptr), (ptr)) \
	R(cudaFreeHost, (void *ptr), (ptr)) \
	R(cudaHostRegister, (void *ptr, size_t size, unsigned int flags), (ptr, size, flags)) \
	R(cudaHostUnregister, (void *ptr), (ptr)) \
	R(cudaMallocAsync, (void **ptr, size_t size, cudaStream_t stream), (ptr, size, stream)) \
	R(cudaMallocAsync_ptsz, (void **ptr, size_t size, cudaStream_t stream), (ptr, size, stream)) \
	R(cudaMallocFromPoolAsync, (void **ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream), \
	  (ptr, size, pool, stream)) \
	R(cudaMallocFromPoolAsync_ptsz, \
	  (void **ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream), \
	  (ptr, size, pool, stream)) \
	R(cudaFreeAsync, (void *ptr, cudaStream_t stream), (ptr, stream)) \
	R(cudaFreeAsync_ptsz, (void *ptr, cudaStream_t stream), (ptr, stream)) \
	R(cudaMallocArray, \
	  (cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width, size_t height, \
	   unsigned int flags), \
	  (array, desc, width, height, flags)) \
	R(cudaMalloc3DArray, \
	  (cudaArray_t *array, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent, \
	   unsigned int flags), \
	  (array, desc, extent, flags)) \
	R(cudaMallocMipmappedArray, \
	  (cudaMipmappedArray_t *array, const struct cudaChannelFormatDesc *desc, \
	   struct cudaExtent extent, unsigned int levels, unsigned int flags), \
	  (array, desc, extent, levels, flags)) \
	R(cudaFreeArray, (cudaArray_t array), (array)) \
	R(cudaFreeMipmappedArray, (cudaMipmappedArray_t array), (array)) \
	R(cudaIpcOpenMemHandle, (void **ptr, cudaIpcMemHandle_t handle, unsigned int flags), \
	  (ptr, handle, flags)) \
	R(cudaIpcCloseMemHandle, (void *ptr), (ptr)) \
	R(cudaExternalMemoryGetMappedBuffer, \
	  (void **ptr, cudaExternalMemory_t external, const struct cudaExternalMemoryBufferDesc *desc), \
	  (ptr, external, desc)) \
	R(cudaMemPoolImportPointer, \
	  (void **ptr, cudaMemPool_t pool, struct cudaMemPoolPtrExportData *data), (ptr, pool, data)) \
	R(cudaExternalMemoryGetMappedMipmappedArray, \
	  (cudaMipmappedArray_t *array, cudaExternalMemory_t external, \
	   const struct cudaExternalMemoryMipmappedArrayDesc *desc), \
	  (array, external, desc)) \
	R(cudaGraphLaunch, (cudaGraphExec_t exec, cudaStream_t stream), (exec, stream)) \
	R(cudaGraphLaunch_ptsz, (cudaGraphExec_t exec, cudaStream_t stream), (exec, stream)) \
	R(cudaGraphUpload, (cudaGraphExec_t exec, cudaStream_t stream), (exec, stream)) \
	R(cudaGraphUpload_ptsz, (cudaGraphExec_t exec, cudaStream_t stream), (exec, stream)) \
	R(cudaDeviceGraphMemTrim, (int device), (device))
/* clang-format on */

/* Strips the parentheses of a list's (arguments). */
#define VT_UNPAREN(...) __VA_ARGS__
