/* Stand-in driver: what a graph's node says of itself (its type, whether
 * it is a root), and its parameters changed in the graph or in an
 * executable graph made from it. */
#include "graph.h"

SIM_EXPORT CUresult cuGraphNodeGetType(CUgraphNode handle, CUgraphNodeType *type)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!type)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	struct sim_node *node = sim_node_locked(handle);
	if (node)
		*type = node->type;
	pthread_mutex_unlock(&sim_lock);
	return node ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* A graph's nodes, or its roots (the nodes no other comes before): with
 * nodes NULL, how many; else up to *count handles, and how many. */
static CUresult list_nodes(CUgraph handle, CUgraphNode *nodes, size_t *count, bool roots_only)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	const struct sim_graph *graph = (const struct sim_graph *)handle;
	if (!graph || !count)
		return CUDA_ERROR_INVALID_VALUE;
	size_t listed = 0;
	for (size_t i = 0; i < graph->count; i++) {
		if (roots_only && graph->nodes[i].dependencies)
			continue;
		if (nodes && listed < *count)
			nodes[listed] = sim_node_handle(graph, i);
		listed++;
	}
	*count = nodes && listed > *count ? *count : listed;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGraphGetNodes(CUgraph handle, CUgraphNode *nodes, size_t *count)
{
	return list_nodes(handle, nodes, count, false);
}

SIM_EXPORT CUresult cuGraphGetRootNodes(CUgraph handle, CUgraphNode *nodes, size_t *count)
{
	return list_nodes(handle, nodes, count, true);
}

/* The kernel node behind a handle, in graph, or any graph (graph 0). */
static CUresult kernel_node(CUgraphNode handle, uint32_t graph, struct sim_node **node)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	*node = sim_node_locked(handle);
	if (*node && graph && sim_handle_graph(handle) != graph)
		*node = NULL;
	return *node && (*node)->type == CU_GRAPH_NODE_TYPE_KERNEL ? CUDA_SUCCESS
								   : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuGraphKernelNodeGetParams(CUgraphNode handle, CUDA_KERNEL_NODE_PARAMS *params)
{
	if (!params)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_node *node;
	pthread_mutex_lock(&sim_lock);
	CUresult rc = kernel_node(handle, 0, &node);
	if (rc == CUDA_SUCCESS)
		*params = node->kernel;
	pthread_mutex_unlock(&sim_lock);
	return rc;
}

SIM_EXPORT CUresult cuGraphKernelNodeSetParams(CUgraphNode handle,
					       const CUDA_KERNEL_NODE_PARAMS *params)
{
	CUresult rc = sim_check_kernel(params);
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_node *node;
	pthread_mutex_lock(&sim_lock);
	rc = kernel_node(handle, 0, &node);
	if (rc == CUDA_SUCCESS)
		node->kernel = *params;
	pthread_mutex_unlock(&sim_lock);
	return rc;
}

/* An executable graph's copy of a node of the graph it was made from. */
SIM_EXPORT CUresult cuGraphExecKernelNodeSetParams(CUgraphExec handle, CUgraphNode node_handle,
						   const CUDA_KERNEL_NODE_PARAMS *params)
{
	struct sim_graph *exec = (struct sim_graph *)handle;
	CUresult rc = sim_check_kernel(params);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!exec)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_node *node;
	pthread_mutex_lock(&sim_lock);
	rc = kernel_node(node_handle, exec->source, &node);
	size_t index = sim_handle_index(node_handle);
	if (rc == CUDA_SUCCESS && index < exec->count)
		exec->nodes[index].kernel = *params;
	else if (rc == CUDA_SUCCESS)
		rc = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&sim_lock);
	return rc;
}

/* An executable graph takes a graph's parameters when the two have the
 * same nodes, of the same types, in the same order. */
SIM_EXPORT CUresult cuGraphExecUpdate(CUgraphExec handle, CUgraph graph_handle,
				      CUgraphExecUpdateResultInfo *info)
{
	struct sim_graph *exec = (struct sim_graph *)handle;
	const struct sim_graph *graph = (const struct sim_graph *)graph_handle;
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!exec || !graph || !info)
		return CUDA_ERROR_INVALID_VALUE;
	*info = (CUgraphExecUpdateResultInfo){.result = CU_GRAPH_EXEC_UPDATE_SUCCESS};
	if (exec->count != graph->count)
		info->result = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
	for (size_t i = 0; i < graph->count && !info->result; i++)
		if (graph->nodes[i].type != exec->nodes[i].type) {
			info->result = CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
			info->errorNode = sim_node_handle(graph, i);
		}
	if (info->result)
		return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
	for (size_t i = 0; i < graph->count; i++) {
		exec->nodes[i].kernel = graph->nodes[i].kernel;
		exec->nodes[i].host = graph->nodes[i].host;
	}
	return CUDA_SUCCESS;
}
