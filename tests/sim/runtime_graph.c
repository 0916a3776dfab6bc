/* Stand-in runtime: graphs, as far as the simulated driver has them
 * (memory nodes). The runtime's node parameters share the driver's layout
 * and its graph memory attributes the driver's values. */
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
