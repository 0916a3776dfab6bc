/* Stand-in runtime: graphs, through the simulated driver's (memory nodes
 * and work nodes). The runtime's memory node parameters share the driver's
 * layout and its graph memory attributes the driver's values. */
#include "runtime.h"

RT_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *graph, unsigned int flags)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphCreate((CUgraph *)graph, flags));
}

RT_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphDestroy((CUgraph)graph));
}

static cudaError_t untraced_cudaGraphAddMemAllocNode(cudaGraphNode_t *node, cudaGraph_t graph,
						     const cudaGraphNode_t *dependencies,
						     size_t count,
						     struct cudaMemAllocNodeParams *params)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphAddMemAllocNode((CUgraphNode *)node, (CUgraph)graph,
							  (const CUgraphNode *)dependencies, count,
							  (CUDA_MEM_ALLOC_NODE_PARAMS *)params));
}

RT_EXPORT cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *node, cudaGraph_t graph,
					       const cudaGraphNode_t *dependencies, size_t count,
					       struct cudaMemAllocNodeParams *node_params)
{
	cudaGraphAddMemAllocNode_v11040_params params = {node, graph, dependencies, count,
							 node_params};
	return RT_TRACED(
		cudaGraphAddMemAllocNode_v11040, &params,
		untraced_cudaGraphAddMemAllocNode(node, graph, dependencies, count, node_params));
}

static cudaError_t untraced_cudaGraphAddMemFreeNode(cudaGraphNode_t *node, cudaGraph_t graph,
						    const cudaGraphNode_t *dependencies,
						    size_t count, void *ptr)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphAddMemFreeNode((CUgraphNode *)node, (CUgraph)graph,
							 (const CUgraphNode *)dependencies, count,
							 (CUdeviceptr)ptr));
}

RT_EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *node, cudaGraph_t graph,
					      const cudaGraphNode_t *dependencies, size_t count,
					      void *ptr)
{
	cudaGraphAddMemFreeNode_v11040_params params = {node, graph, dependencies, count, ptr};
	return RT_TRACED(cudaGraphAddMemFreeNode_v11040, &params,
			 untraced_cudaGraphAddMemFreeNode(node, graph, dependencies, count, ptr));
}

RT_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
					   unsigned long long flags)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(
		rt_driver.cuGraphInstantiateWithFlags((CUgraphExec *)exec, (CUgraph)graph, flags));
}

RT_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *exec, cudaGraph_t graph,
						    unsigned long long flags)
{
	return cudaGraphInstantiate(exec, graph, flags);
}

static cudaError_t launch(cudaGraphExec_t exec, cudaStream_t stream, enum rt_stream_mode mode)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphLaunch[mode]((CUgraphExec)exec, (CUstream)stream));
}

RT_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
	return launch(exec, stream, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t stream)
{
	return launch(exec, stream, RT_PER_THREAD_STREAM);
}

static cudaError_t upload(cudaGraphExec_t exec, cudaStream_t stream, enum rt_stream_mode mode)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphUpload[mode]((CUgraphExec)exec, (CUstream)stream));
}

RT_EXPORT cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream)
{
	return upload(exec, stream, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t exec, cudaStream_t stream)
{
	return upload(exec, stream, RT_PER_THREAD_STREAM);
}

RT_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphExecDestroy((CUgraphExec)exec));
}

static cudaError_t untraced_cudaDeviceGraphMemTrim(int device)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDeviceGraphMemTrim(device));
}

RT_EXPORT cudaError_t cudaDeviceGraphMemTrim(int device)
{
	cudaDeviceGraphMemTrim_v11040_params params = {device};
	return RT_TRACED(cudaDeviceGraphMemTrim_v11040, &params,
			 untraced_cudaDeviceGraphMemTrim(device));
}

RT_EXPORT cudaError_t cudaDeviceGetGraphMemAttribute(int device,
						     enum cudaGraphMemAttributeType attribute,
						     void *value)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDeviceGetGraphMemAttribute(
		device, (CUgraphMem_attribute)attribute, value));
}

RT_EXPORT cudaError_t cudaDeviceSetGraphMemAttribute(int device,
						     enum cudaGraphMemAttributeType attribute,
						     void *value)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDeviceSetGraphMemAttribute(
		device, (CUgraphMem_attribute)attribute, value));
}

/* Work nodes: the runtime's parameters checked, then handed to the driver
 * in its own layout. */
/* The runtime's kernel node parameters in the driver's layout, its
 * configuration checked first as the runtime checks a launch. */
static cudaError_t driver_kernel(const struct cudaKernelNodeParams *params,
				 CUDA_KERNEL_NODE_PARAMS *out)
{
	if (!params)
		return rt_fail(cudaErrorInvalidValue);
	if (!rt_configuration_fits(params->gridDim, params->blockDim))
		return rt_fail(cudaErrorInvalidConfiguration);
	CUfunction function;
	cudaError_t error = rt_function(params->func, &function);
	if (error != cudaSuccess)
		return error;
	*out = (CUDA_KERNEL_NODE_PARAMS){
		.func = function,
		.gridDimX = params->gridDim.x,
		.gridDimY = params->gridDim.y,
		.gridDimZ = params->gridDim.z,
		.blockDimX = params->blockDim.x,
		.blockDimY = params->blockDim.y,
		.blockDimZ = params->blockDim.z,
		.sharedMemBytes = params->sharedMemBytes,
		.kernelParams = params->kernelParams,
		.extra = params->extra,
	};
	return cudaSuccess;
}

RT_EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *node, cudaGraph_t graph,
					     const cudaGraphNode_t *dependencies, size_t count,
					     const struct cudaKernelNodeParams *params)
{
	CUDA_KERNEL_NODE_PARAMS driver;
	cudaError_t error = driver_kernel(params, &driver);
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphAddKernelNode((CUgraphNode *)node, (CUgraph)graph,
							(const CUgraphNode *)dependencies, count,
							&driver));
}

RT_EXPORT cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
						   const struct cudaKernelNodeParams *params)
{
	CUDA_KERNEL_NODE_PARAMS driver;
	cudaError_t error = driver_kernel(params, &driver);
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphKernelNodeSetParams((CUgraphNode)node, &driver));
}

RT_EXPORT cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
						       const struct cudaKernelNodeParams *params)
{
	CUDA_KERNEL_NODE_PARAMS driver;
	cudaError_t error = driver_kernel(params, &driver);
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphExecKernelNodeSetParams((CUgraphExec)exec,
								  (CUgraphNode)node, &driver));
}

/* The kernel as the program named it: nvcc's host stub, or a library's
 * kernel. */
RT_EXPORT cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
						   struct cudaKernelNodeParams *params)
{
	if (!params)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	CUDA_KERNEL_NODE_PARAMS driver;
	CUresult rc = rt_driver.cuGraphKernelNodeGetParams((CUgraphNode)node, &driver);
	if (rc != CUDA_SUCCESS)
		return rt_result(rc);
	*params = (struct cudaKernelNodeParams){
		.func = (void *)rt_host_of(driver.func),
		.gridDim = {driver.gridDimX, driver.gridDimY, driver.gridDimZ},
		.blockDim = {driver.blockDimX, driver.blockDimY, driver.blockDimZ},
		.sharedMemBytes = driver.sharedMemBytes,
		.kernelParams = driver.kernelParams,
		.extra = driver.extra,
	};
	return cudaSuccess;
}

/* Node types and update results share the driver's values and layout. */
RT_EXPORT cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *type)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphNodeGetType((CUgraphNode)node, (CUgraphNodeType *)type));
}

RT_EXPORT cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
					    size_t *count)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(
		rt_driver.cuGraphGetRootNodes((CUgraph)graph, (CUgraphNode *)nodes, count));
}

RT_EXPORT cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
					  cudaGraphExecUpdateResultInfo *info)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphExecUpdate((CUgraphExec)exec, (CUgraph)graph,
						     (CUgraphExecUpdateResultInfo *)info));
}

/* A linear copy of bytes, as the driver describes it. */
static CUDA_MEMCPY3D linear_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
	bool from_host = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost;
	bool to_host = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost;
	return (CUDA_MEMCPY3D){
		.srcMemoryType = from_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_UNIFIED,
		.srcHost = src,
		.srcDevice = (CUdeviceptr)src,
		.dstMemoryType = to_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_UNIFIED,
		.dstHost = dst,
		.dstDevice = (CUdeviceptr)dst,
		.WidthInBytes = bytes,
		.Height = 1,
		.Depth = 1,
	};
}

RT_EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *node, cudaGraph_t graph,
					       const cudaGraphNode_t *dependencies, size_t count,
					       void *dst, const void *src, size_t bytes,
					       enum cudaMemcpyKind kind)
{
	if (!dst || !src || (unsigned)kind > cudaMemcpyDefault)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	CUDA_MEMCPY3D copy = linear_copy(dst, src, bytes, kind);
	return rt_result(rt_driver.cuGraphAddMemcpyNode((CUgraphNode *)node, (CUgraph)graph,
							(const CUgraphNode *)dependencies, count,
							&copy, NULL));
}

/* A 3-D copy's extent is what the driver checks; its ends are the
 * program's to get right. */
RT_EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *node, cudaGraph_t graph,
					     const cudaGraphNode_t *dependencies, size_t count,
					     const struct cudaMemcpy3DParms *params)
{
	if (!params || (!params->srcArray && !params->srcPtr.ptr) ||
	    (!params->dstArray && !params->dstPtr.ptr))
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	CUDA_MEMCPY3D copy = linear_copy(params->dstPtr.ptr, params->srcPtr.ptr,
					 params->extent.width, params->kind);
	copy.Height = params->extent.height;
	copy.Depth = params->extent.depth;
	return rt_result(rt_driver.cuGraphAddMemcpyNode((CUgraphNode *)node, (CUgraph)graph,
							(const CUgraphNode *)dependencies, count,
							&copy, NULL));
}

/* cudaMemsetParams and cudaHostNodeParams share the driver's layout. */
RT_EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *node, cudaGraph_t graph,
					     const cudaGraphNode_t *dependencies, size_t count,
					     const struct cudaMemsetParams *params)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphAddMemsetNode(
		(CUgraphNode *)node, (CUgraph)graph, (const CUgraphNode *)dependencies, count,
		(const CUDA_MEMSET_NODE_PARAMS *)params, NULL));
}

RT_EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *node, cudaGraph_t graph,
					   const cudaGraphNode_t *dependencies, size_t count,
					   const struct cudaHostNodeParams *params)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphAddHostNode((CUgraphNode *)node, (CUgraph)graph,
						      (const CUgraphNode *)dependencies, count,
						      (const CUDA_HOST_NODE_PARAMS *)params));
}

RT_EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *node, cudaGraph_t graph,
					    const cudaGraphNode_t *dependencies, size_t count)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphAddEmptyNode((CUgraphNode *)node, (CUgraph)graph,
						       (const CUgraphNode *)dependencies, count));
}

RT_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphGetNodes((CUgraph)graph, (CUgraphNode *)nodes, count));
}

RT_EXPORT cudaError_t cudaGraphClone(cudaGraph_t *clone, cudaGraph_t graph)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuGraphClone((CUgraph *)clone, (CUgraph)graph));
}
