/* Stand-in driver: the entry points a CUDA 13 driver still exports under
 * their older ABIs (the unversioned names and the _v2/_v3 ones a newer
 * version replaced), for programs built against older headers and for
 * loaders that look names up themselves. Each behaves as its version does,
 * through the newer one: the same arguments, or the older ones converted.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

/* The ABI names, which cuda.h's macros would rename to the newest. */
#undef cuCtxCreate
#undef cuCtxDestroy
#undef cuCtxPushCurrent
#undef cuCtxPopCurrent
#undef cuEventDestroy
#undef cuStreamDestroy
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset
#undef cuDevicePrimaryCtxSetFlags
#undef cuDeviceGetUuid
#undef cuStreamBeginCapture
#undef cuStreamGetCaptureInfo
#undef cuGraphExecUpdate
#undef cuGraphAddKernelNode
#undef cuGraphKernelNodeGetParams
#undef cuGraphKernelNodeSetParams
#undef cuGraphExecKernelNodeSetParams
#undef cuMemcpyDtoDAsync
#undef cuMemHostRegister

/* The newer ABIs this file forwards to, under their own names. */
CUresult cuCtxCreate_v4(CUcontext *out, CUctxCreateParams *params, unsigned flags, CUdevice dev);
CUresult cuCtxDestroy_v2(CUcontext context);
CUresult cuCtxPushCurrent_v2(CUcontext context);
CUresult cuCtxPopCurrent_v2(CUcontext *context);
CUresult cuEventDestroy_v2(CUevent event);
CUresult cuStreamDestroy_v2(CUstream stream);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device);
CUresult cuDevicePrimaryCtxReset_v2(CUdevice device);
CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice device);
CUresult cuMemHostRegister_v2(void *host, size_t bytes, unsigned int flags);
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode mode);
CUresult cuStreamGetCaptureInfo_v3(CUstream stream, CUstreamCaptureStatus *status, cuuint64_t *id,
				   CUgraph *graph, const CUgraphNode **dependencies,
				   const CUgraphEdgeData **edges, size_t *count);
CUresult cuGraphExecUpdate_v2(CUgraphExec exec, CUgraph graph, CUgraphExecUpdateResultInfo *info);
CUresult cuGraphAddKernelNode_v2(CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
				 size_t count, const CUDA_KERNEL_NODE_PARAMS *params);
CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode node, CUDA_KERNEL_NODE_PARAMS *params);
CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS *params);
CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec exec, CUgraphNode node,
					   const CUDA_KERNEL_NODE_PARAMS *params);

/* Contexts: CUDA 3.2's cuCtxCreate_v2 (and 2.0's, the same arguments),
 * 11.4's with execution affinity, which a simulated device ignores. */
SIM_EXPORT CUresult cuCtxCreate(CUcontext *out, unsigned int flags, CUdevice device)
{
	return cuCtxCreate_v4(out, NULL, flags, device);
}

SIM_EXPORT CUresult cuCtxCreate_v2(CUcontext *out, unsigned int flags, CUdevice device)
{
	return cuCtxCreate_v4(out, NULL, flags, device);
}

SIM_EXPORT CUresult cuCtxCreate_v3(CUcontext *out, CUexecAffinityParam *affinity, int count,
				   unsigned int flags, CUdevice device)
{
	if (count < 0 || (count && !affinity))
		return CUDA_ERROR_INVALID_VALUE;
	return cuCtxCreate_v4(out, NULL, flags, device);
}

/* The first ABIs of these took the same arguments as their successors. */
SIM_EXPORT CUresult cuCtxDestroy(CUcontext context)
{
	return cuCtxDestroy_v2(context);
}

SIM_EXPORT CUresult cuCtxPushCurrent(CUcontext context)
{
	return cuCtxPushCurrent_v2(context);
}

SIM_EXPORT CUresult cuCtxPopCurrent(CUcontext *context)
{
	return cuCtxPopCurrent_v2(context);
}

SIM_EXPORT CUresult cuEventDestroy(CUevent event)
{
	return cuEventDestroy_v2(event);
}

SIM_EXPORT CUresult cuStreamDestroy(CUstream stream)
{
	return cuStreamDestroy_v2(stream);
}

SIM_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice device)
{
	return cuDevicePrimaryCtxRelease_v2(device);
}

SIM_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice device)
{
	return cuDevicePrimaryCtxReset_v2(device);
}

SIM_EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice device)
{
	return cuDeviceGetUuid_v2(uuid, device);
}

/* CUDA 4.0's registration took whole pages only. */
SIM_EXPORT CUresult cuMemHostRegister(void *host, size_t bytes, unsigned int flags)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	if ((uintptr_t)host % page || bytes % page)
		return CUDA_ERROR_INVALID_VALUE;
	return cuMemHostRegister_v2(host, bytes, flags);
}

/* The primary context's flags: CUDA 11's version sets them while the
 * context is active too; 7.0's refused that. */
static CUresult set_primary_flags(CUdevice device, unsigned flags, bool while_active)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (flags &
	    ~(unsigned)(CU_CTX_SCHED_MASK | CU_CTX_LMEM_RESIZE_TO_MAX | CU_CTX_COREDUMP_ENABLE |
			CU_CTX_USER_COREDUMP_ENABLE | CU_CTX_SYNC_MEMOPS))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	struct sim_device *dev = &sim_devices[device];
	bool refused = !while_active && dev->primary.live;
	if (!refused)
		dev->primary_flags = flags;
	pthread_mutex_unlock(&sim_lock);
	return refused ? CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE : CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice device, unsigned int flags)
{
	return set_primary_flags(device, flags, false);
}

SIM_EXPORT CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice device, unsigned int flags)
{
	return set_primary_flags(device, flags, true);
}

/* A context's cache and shared-memory bank preferences: kept, as a hint
 * Hopper may ignore; its banks are four bytes wide whatever is asked. */
SIM_EXPORT CUresult cuCtxSetCacheConfig(CUfunc_cache config)
{
	struct sim_context *context;
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if ((unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL)
		return CUDA_ERROR_INVALID_VALUE;
	if ((context = sim_current_context()))
		context->cache_config = config;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetCacheConfig(CUfunc_cache *config)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!config)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_context *context = sim_current_context();
	*config = context ? (CUfunc_cache)context->cache_config : CU_FUNC_CACHE_PREFER_NONE;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxSetSharedMemConfig(CUsharedconfig config)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	return (unsigned)config <= CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE
		       ? CUDA_SUCCESS
		       : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuCtxGetSharedMemConfig(CUsharedconfig *config)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!config)
		return CUDA_ERROR_INVALID_VALUE;
	*config = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
	return CUDA_SUCCESS;
}

/* Copies between devices finish at once, as every other simulated copy. */
SIM_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
					 CUstream stream)
{
	return sim_stream_capture(stream) ? CUDA_SUCCESS : cuMemcpyDtoD_v2(dst, src, bytes);
}

SIM_EXPORT CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
					      CUstream stream)
{
	return cuMemcpyDtoDAsync_v2(dst, src, bytes, stream);
}

/* Stream capture before CUDA 10.1 had no mode: it was global. */
SIM_EXPORT CUresult cuStreamBeginCapture(CUstream stream)
{
	return cuStreamBeginCapture_v2(stream, CU_STREAM_CAPTURE_MODE_GLOBAL);
}

SIM_EXPORT CUresult cuStreamGetCaptureInfo(CUstream stream, CUstreamCaptureStatus *status,
					   cuuint64_t *id)
{
	return cuStreamGetCaptureInfo_v3(stream, status, id, NULL, NULL, NULL, NULL);
}

SIM_EXPORT CUresult cuStreamGetCaptureInfo_v2(CUstream stream, CUstreamCaptureStatus *status,
					      cuuint64_t *id, CUgraph *graph,
					      const CUgraphNode **dependencies, size_t *count)
{
	return cuStreamGetCaptureInfo_v3(stream, status, id, graph, dependencies, NULL, count);
}

SIM_EXPORT CUresult cuGraphExecUpdate(CUgraphExec exec, CUgraph graph, CUgraphNode *error_node,
				      CUgraphExecUpdateResult *result)
{
	CUgraphExecUpdateResultInfo info = {0};
	CUresult rc = cuGraphExecUpdate_v2(exec, graph, &info);
	if (error_node)
		*error_node = info.errorNode;
	if (result)
		*result = info.result;
	return rc;
}

/* Kernel nodes before CUDA 12 named no kernel handle nor context. */
static CUDA_KERNEL_NODE_PARAMS kernel_params_of(const CUDA_KERNEL_NODE_PARAMS_v1 *old)
{
	return (CUDA_KERNEL_NODE_PARAMS){
		.func = old->func,
		.gridDimX = old->gridDimX,
		.gridDimY = old->gridDimY,
		.gridDimZ = old->gridDimZ,
		.blockDimX = old->blockDimX,
		.blockDimY = old->blockDimY,
		.blockDimZ = old->blockDimZ,
		.sharedMemBytes = old->sharedMemBytes,
		.kernelParams = old->kernelParams,
		.extra = old->extra,
	};
}

SIM_EXPORT CUresult cuGraphAddKernelNode(CUgraphNode *node, CUgraph graph,
					 const CUgraphNode *dependencies, size_t count,
					 const CUDA_KERNEL_NODE_PARAMS_v1 *params)
{
	if (!params)
		return CUDA_ERROR_INVALID_VALUE;
	CUDA_KERNEL_NODE_PARAMS now = kernel_params_of(params);
	return cuGraphAddKernelNode_v2(node, graph, dependencies, count, &now);
}

SIM_EXPORT CUresult cuGraphKernelNodeGetParams(CUgraphNode node, CUDA_KERNEL_NODE_PARAMS_v1 *params)
{
	CUDA_KERNEL_NODE_PARAMS now;
	if (!params)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult rc = cuGraphKernelNodeGetParams_v2(node, &now);
	if (rc == CUDA_SUCCESS)
		*params = (CUDA_KERNEL_NODE_PARAMS_v1){
			now.func,         now.gridDimX,  now.gridDimY,  now.gridDimZ,
			now.blockDimX,    now.blockDimY, now.blockDimZ, now.sharedMemBytes,
			now.kernelParams, now.extra};
	return rc;
}

SIM_EXPORT CUresult cuGraphKernelNodeSetParams(CUgraphNode node,
					       const CUDA_KERNEL_NODE_PARAMS_v1 *params)
{
	if (!params)
		return CUDA_ERROR_INVALID_VALUE;
	CUDA_KERNEL_NODE_PARAMS now = kernel_params_of(params);
	return cuGraphKernelNodeSetParams_v2(node, &now);
}

SIM_EXPORT CUresult cuGraphExecKernelNodeSetParams(CUgraphExec exec, CUgraphNode node,
						   const CUDA_KERNEL_NODE_PARAMS_v1 *params)
{
	if (!params)
		return CUDA_ERROR_INVALID_VALUE;
	CUDA_KERNEL_NODE_PARAMS now = kernel_params_of(params);
	return cuGraphExecKernelNodeSetParams_v2(exec, node, &now);
}
