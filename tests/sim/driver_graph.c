/* Stand-in driver: graphs. A graph holds allocation and free nodes, and
 * work nodes (kernels, copies, sets, host functions, empty ones): a launch
 * runs a host node's function, and the rest of the work runs nowhere,
 * after the checks a real driver makes when the node is added. An allocation
 * node's address is fixed when the node is added, but its memory exists
 * only from a launch that allocates it to a launch that frees it. The
 * device keeps freed graph memory reserved, and charged, until
 * cuDeviceGraphMemTrim. Graph allocations are freed only by free nodes. */
#include <string.h>
#include <sys/mman.h>

#include "graph.h"

static struct sim_graph_allocation *graph_allocations;
static struct sim_graph *graphs;
static uint32_t next_graph_id = 1;

/* Called with sim_lock held: the live graph of that id, or NULL. */
static struct sim_graph *graph_locked(uint32_t id)
{
	struct sim_graph *graph = graphs;
	while (graph && graph->id != id)
		graph = graph->next;
	return graph;
}

/* Called with sim_lock held: the node behind a handle, or NULL. */
struct sim_node *sim_node_locked(CUgraphNode handle)
{
	struct sim_graph *graph = graph_locked(sim_handle_graph(handle));
	size_t index = sim_handle_index(handle);
	return graph && handle && index < graph->count ? &graph->nodes[index] : NULL;
}

/* Dependencies are nodes of the same graph. */
static bool valid_dependencies(const struct sim_graph *graph, const CUgraphNode *dependencies,
			       size_t count)
{
	if (count && !dependencies)
		return false;
	for (size_t i = 0; i < count; i++)
		if (sim_handle_graph(dependencies[i]) != graph->id || !dependencies[i] ||
		    sim_handle_index(dependencies[i]) >= graph->count)
			return false;
	return true;
}

static CUresult add_node(struct sim_graph *graph, struct sim_node node, CUgraphNode *out)
{
	struct sim_node *grown = realloc(graph->nodes, (graph->count + 1) * sizeof(*grown));
	if (!grown)
		return CUDA_ERROR_OUT_OF_MEMORY;
	graph->nodes = grown;
	graph->nodes[graph->count++] = node;
	*out = sim_node_handle(graph, graph->count - 1);
	return CUDA_SUCCESS;
}

/* A new graph, listed live, with nodes copied from source (or none). */
static struct sim_graph *new_graph(const struct sim_graph *source)
{
	struct sim_graph *graph = calloc(1, sizeof(*graph));
	size_t count = source ? source->count : 0;
	if (graph && count) {
		graph->nodes = malloc(count * sizeof(*graph->nodes));
		if (graph->nodes) {
			memcpy(graph->nodes, source->nodes, count * sizeof(*graph->nodes));
			graph->count = count;
		}
	}
	if (graph && graph->count != count) {
		free(graph);
		return NULL;
	}
	if (!graph)
		return NULL;
	pthread_mutex_lock(&sim_lock);
	graph->id = next_graph_id++;
	graph->source = source ? source->id : 0;
	graph->next = graphs;
	graphs = graph;
	pthread_mutex_unlock(&sim_lock);
	return graph;
}

SIM_EXPORT CUresult cuGraphCreate(CUgraph *out, unsigned int flags)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out || flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_graph *graph = new_graph(NULL);
	if (!graph)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*out = (CUgraph)graph;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGraphDestroy(CUgraph handle)
{
	struct sim_graph *graph = (struct sim_graph *)handle;
	if (!graph)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	struct sim_graph **link = &graphs;
	while (*link && *link != graph)
		link = &(*link)->next;
	if (*link)
		*link = graph->next;
	pthread_mutex_unlock(&sim_lock);
	free(graph->nodes);
	free(graph);
	return CUDA_SUCCESS;
}

static CUresult untraced_cuGraphAddMemAllocNode(CUgraphNode *node, CUgraph handle,
						const CUgraphNode *dependencies, size_t count,
						CUDA_MEM_ALLOC_NODE_PARAMS *params)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!node || !handle || !params || params->bytesize == 0 ||
	    !valid_dependencies((struct sim_graph *)handle, dependencies, count) ||
	    params->poolProps.allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
	    params->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	int device = params->poolProps.location.id;
	if (!sim_valid_device(device))
		return CUDA_ERROR_INVALID_DEVICE;
	if (params->bytesize > SIM_MAX_BYTES)
		return CUDA_ERROR_OUT_OF_MEMORY;
	struct sim_graph_allocation *allocation = calloc(1, sizeof(*allocation));
	void *at = mmap(NULL, params->bytesize, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!allocation || at == MAP_FAILED) {
		free(allocation);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*allocation = (struct sim_graph_allocation){
		.address = (uintptr_t)at,
		.bytes = params->bytesize,
		.charge = sim_round_up(params->bytesize, sim_config()->granularity),
		.device = device,
	};
	rc = add_node((struct sim_graph *)handle,
		      (struct sim_node){.kind = SIM_NODE_ALLOC,
					.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC,
					.dependencies = count,
					.allocation = allocation},
		      node);
	if (rc != CUDA_SUCCESS) {
		munmap(at, params->bytesize);
		free(allocation);
		return rc;
	}
	pthread_mutex_lock(&sim_lock);
	allocation->next = graph_allocations;
	graph_allocations = allocation;
	pthread_mutex_unlock(&sim_lock);
	params->dptr = (CUdeviceptr)at;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGraphAddMemAllocNode(CUgraphNode *node, CUgraph handle,
					   const CUgraphNode *dependencies, size_t count,
					   CUDA_MEM_ALLOC_NODE_PARAMS *node_params)
{
	cuGraphAddMemAllocNode_params params = {node, handle, dependencies, count, node_params};
	return SIM_TRACED(
		cuGraphAddMemAllocNode, &params,
		untraced_cuGraphAddMemAllocNode(node, handle, dependencies, count, node_params));
}

static CUresult add_free_node(CUgraphNode *node, CUgraph handle, const CUgraphNode *dependencies,
			      size_t count, CUdeviceptr dptr)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_graph_allocation *allocation = NULL;
	pthread_mutex_lock(&sim_lock);
	for (allocation = graph_allocations; allocation; allocation = allocation->next)
		if (allocation->address == (uintptr_t)dptr)
			break;
	pthread_mutex_unlock(&sim_lock);
	if (!node || !handle || !allocation ||
	    !valid_dependencies((struct sim_graph *)handle, dependencies, count))
		return CUDA_ERROR_INVALID_VALUE;
	return add_node((struct sim_graph *)handle,
			(struct sim_node){.kind = SIM_NODE_FREE,
					  .type = CU_GRAPH_NODE_TYPE_MEM_FREE,
					  .dependencies = count,
					  .allocation = allocation},
			node);
}

SIM_EXPORT CUresult cuGraphAddMemFreeNode(CUgraphNode *node, CUgraph handle,
					  const CUgraphNode *dependencies, size_t count,
					  CUdeviceptr dptr)
{
	return add_free_node(node, handle, dependencies, count, dptr);
}

/* A captured cuMemAllocAsync: an allocation node on the stream's device,
 * added as the driver's own work, so no CUPTI callback fires for it. */
CUresult sim_graph_capture_alloc(CUgraph graph, int device, size_t bytes, CUdeviceptr *dptr)
{
	if (!dptr)
		return CUDA_ERROR_INVALID_VALUE;
	CUDA_MEM_ALLOC_NODE_PARAMS params = {
		.poolProps = {.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
			      .location = {CU_MEM_LOCATION_TYPE_DEVICE, device}},
		.bytesize = bytes,
	};
	CUgraphNode node;
	CUresult rc = untraced_cuGraphAddMemAllocNode(&node, graph, NULL, 0, &params);
	if (rc == CUDA_SUCCESS)
		*dptr = params.dptr;
	return rc;
}

/* A captured cuLaunchHostFunc: a host node, run at each launch. */
CUresult sim_graph_capture_host(CUgraph graph, CUhostFn function, void *data)
{
	CUgraphNode node;
	CUDA_HOST_NODE_PARAMS host = {function, data};
	return cuGraphAddHostNode(&node, graph, NULL, 0, &host);
}

/* A captured cuMemFreeAsync of memory the graph allocates. */
CUresult sim_graph_capture_free(CUgraph graph, CUdeviceptr dptr)
{
	CUgraphNode node;
	return add_free_node(&node, graph, NULL, 0, dptr);
}

static CUresult add_work(CUgraphNode *node, CUgraph handle, const CUgraphNode *dependencies,
			 size_t count, bool valid, struct sim_node work)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_graph *graph = (struct sim_graph *)handle;
	if (!node || !graph || !valid || !valid_dependencies(graph, dependencies, count))
		return CUDA_ERROR_INVALID_VALUE;
	work.dependencies = count;
	return add_node(graph, work, node);
}

static struct sim_node work_node(CUgraphNodeType type)
{
	return (struct sim_node){.kind = SIM_NODE_WORK, .type = type};
}

/* A real GPU's checks of a kernel's launch, for a kernel node. */
CUresult sim_check_kernel(const CUDA_KERNEL_NODE_PARAMS *params)
{
	if (!params)
		return CUDA_ERROR_INVALID_VALUE;
	const unsigned grid[3] = {params->gridDimX, params->gridDimY, params->gridDimZ};
	const unsigned block[3] = {params->blockDimX, params->blockDimY, params->blockDimZ};
	return sim_launch_check(params->func, grid, block, params->sharedMemBytes);
}

SIM_EXPORT CUresult cuGraphAddKernelNode(CUgraphNode *node, CUgraph handle,
					 const CUgraphNode *dependencies, size_t count,
					 const CUDA_KERNEL_NODE_PARAMS *params)
{
	CUresult rc = sim_check_kernel(params);
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_node work = work_node(CU_GRAPH_NODE_TYPE_KERNEL);
	work.kernel = *params;
	return add_work(node, handle, dependencies, count, true, work);
}

SIM_EXPORT CUresult cuGraphAddMemcpyNode(CUgraphNode *node, CUgraph handle,
					 const CUgraphNode *dependencies, size_t count,
					 const CUDA_MEMCPY3D *copy, CUcontext context)
{
	(void)context;
	bool valid = copy && copy->WidthInBytes && copy->Height && copy->Depth;
	return add_work(node, handle, dependencies, count, valid,
			work_node(CU_GRAPH_NODE_TYPE_MEMCPY));
}

SIM_EXPORT CUresult cuGraphAddMemsetNode(CUgraphNode *node, CUgraph handle,
					 const CUgraphNode *dependencies, size_t count,
					 const CUDA_MEMSET_NODE_PARAMS *set, CUcontext context)
{
	(void)context;
	bool valid = set && set->dst &&
		     (set->elementSize == 1 || set->elementSize == 2 || set->elementSize == 4) &&
		     (set->height <= 1 || set->pitch >= set->width * set->elementSize);
	return add_work(node, handle, dependencies, count, valid,
			work_node(CU_GRAPH_NODE_TYPE_MEMSET));
}

SIM_EXPORT CUresult cuGraphAddHostNode(CUgraphNode *node, CUgraph handle,
				       const CUgraphNode *dependencies, size_t count,
				       const CUDA_HOST_NODE_PARAMS *host)
{
	struct sim_node work = {.kind = SIM_NODE_HOST, .type = CU_GRAPH_NODE_TYPE_HOST};
	if (host)
		work.host = *host;
	return add_work(node, handle, dependencies, count, host && host->fn, work);
}

SIM_EXPORT CUresult cuGraphAddEmptyNode(CUgraphNode *node, CUgraph handle,
					const CUgraphNode *dependencies, size_t count)
{
	return add_work(node, handle, dependencies, count, true,
			work_node(CU_GRAPH_NODE_TYPE_EMPTY));
}

/* An executable graph is a copy of the graph's nodes at instantiation. */
/* An executable graph and a clone are both copies of the graph. */
static CUresult copy_graph(CUgraph handle, struct sim_graph **out)
{
	const struct sim_graph *graph = (const struct sim_graph *)handle;
	if (!out || !graph)
		return CUDA_ERROR_INVALID_VALUE;
	*out = new_graph(graph);
	return *out ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

SIM_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *out, CUgraph handle,
						unsigned long long flags)
{
	CUresult rc = copy_graph(handle, (struct sim_graph **)out);
	if (rc == CUDA_SUCCESS)
		(*(struct sim_graph **)out)->flags = flags;
	return rc;
}

SIM_EXPORT CUresult cuGraphClone(CUgraph *out, CUgraph handle)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	return copy_graph(handle, (struct sim_graph **)out);
}

SIM_EXPORT CUresult cuGraphExecDestroy(CUgraphExec handle)
{
	return cuGraphDestroy((CUgraph)handle);
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Called with sim_lock held: false when the device has no room. */
static bool allocate_locked(struct sim_graph_allocation *allocation)
{
	struct sim_device *dev = &sim_devices[allocation->device];
	uint64_t free_in_reserve = dev->graph_reserved - dev->graph_live;
	uint64_t growth =
		allocation->charge > free_in_reserve ? allocation->charge - free_in_reserve : 0;
	uint64_t used = sim_device_used(allocation->device);
	if (used > dev->capacity || growth > dev->capacity - used)
		return false;
	dev->charged += growth;
	dev->graph_reserved += growth;
	dev->graph_live += allocation->charge;
	dev->graph_used = max_u64(dev->graph_used, dev->graph_live);
	dev->graph_used_high = max_u64(dev->graph_used_high, dev->graph_used);
	dev->graph_reserved_high = max_u64(dev->graph_reserved_high, dev->graph_reserved);
	allocation->live = true;
	return true;
}

/* Called with sim_lock held: the memory stays mapped for graphs. */
static void free_locked(struct sim_graph_allocation *allocation)
{
	sim_devices[allocation->device].graph_live -= allocation->charge;
	allocation->live = false;
}

/* Memory a launch allocated and no free node freed: cuMemFree or
 * cuMemFreeAsync may free it, as on the real driver. */
CUresult sim_graph_free(uintptr_t address)
{
	pthread_mutex_lock(&sim_lock);
	struct sim_graph_allocation *allocation = graph_allocations;
	while (allocation && !(allocation->live && allocation->address == address))
		allocation = allocation->next;
	if (allocation)
		free_locked(allocation);
	pthread_mutex_unlock(&sim_lock);
	return allocation ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

bool sim_graph_memory_locked(uintptr_t address, size_t bytes)
{
	for (struct sim_graph_allocation *allocation = graph_allocations; allocation;
	     allocation = allocation->next)
		if (allocation->live && address >= allocation->address &&
		    address - allocation->address <= allocation->bytes &&
		    bytes <= allocation->bytes - (address - allocation->address))
			return true;
	return false;
}

/* A host node's function runs without the driver's lock, as it may take
 * locks of its own. */
static CUresult run_node(const struct sim_node *node)
{
	if (node->kind == SIM_NODE_HOST)
		node->host.fn(node->host.userData);
	if (node->kind == SIM_NODE_HOST || node->kind == SIM_NODE_WORK)
		return CUDA_SUCCESS;
	struct sim_graph_allocation *allocation = node->allocation;
	bool allocating = node->kind == SIM_NODE_ALLOC;
	CUresult rc = CUDA_SUCCESS;
	pthread_mutex_lock(&sim_lock);
	if (allocating == allocation->live)
		rc = CUDA_ERROR_INVALID_VALUE; /* allocated twice, or freed twice */
	else if (allocating && !allocate_locked(allocation))
		rc = CUDA_ERROR_OUT_OF_MEMORY;
	else if (!allocating)
		free_locked(allocation);
	pthread_mutex_unlock(&sim_lock);
	return rc;
}

/* Called with sim_lock held: the most graph memory one launch of exec has
 * allocated at once. */
static uint64_t launch_need_locked(const struct sim_graph *exec)
{
	uint64_t live = 0, most = 0;
	for (size_t i = 0; i < exec->count; i++) {
		const struct sim_node *node = &exec->nodes[i];
		if (node->kind == SIM_NODE_ALLOC)
			live += node->allocation->charge;
		else if (node->kind == SIM_NODE_FREE && live >= node->allocation->charge)
			live -= node->allocation->charge;
		most = max_u64(most, live);
	}
	return most;
}

/* An upload reserves, on the exec's devices, what its launches will
 * allocate, ahead of the first launch (all of it on the first
 * allocation's device, as the simulated graphs allocate on one). */
static CUresult untraced_cuGraphUpload(CUgraphExec handle, CUstream stream)
{
	(void)stream;
	const struct sim_graph *exec = (const struct sim_graph *)handle;
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!exec)
		return CUDA_ERROR_INVALID_VALUE;
	const struct sim_node *first = NULL;
	for (size_t i = 0; i < exec->count && !first; i++)
		if (exec->nodes[i].kind == SIM_NODE_ALLOC)
			first = &exec->nodes[i];
	if (!first)
		return CUDA_SUCCESS;
	pthread_mutex_lock(&sim_lock);
	struct sim_device *dev = &sim_devices[first->allocation->device];
	uint64_t spare = dev->graph_reserved - dev->graph_live, need = launch_need_locked(exec);
	uint64_t growth = need > spare ? need - spare : 0;
	uint64_t used = sim_device_used(first->allocation->device);
	bool fits = used <= dev->capacity && growth <= dev->capacity - used;
	if (fits) {
		dev->charged += growth;
		dev->graph_reserved += growth;
		dev->graph_reserved_high = max_u64(dev->graph_reserved_high, dev->graph_reserved);
	}
	pthread_mutex_unlock(&sim_lock);
	return fits ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

SIM_EXPORT CUresult cuGraphUpload(CUgraphExec handle, CUstream stream)
{
	cuGraphUpload_params params = {handle, stream};
	return SIM_TRACED(cuGraphUpload, &params, untraced_cuGraphUpload(handle, stream));
}

SIM_EXPORT CUresult cuGraphUpload_ptsz(CUgraphExec handle, CUstream stream)
{
	cuGraphUpload_ptsz_params params = {handle, stream};
	return SIM_TRACED(cuGraphUpload_ptsz, &params, untraced_cuGraphUpload(handle, stream));
}

/* Before a launch runs anything: an allocation of exec's still live from
 * an earlier launch fails it, unless exec was instantiated to free its
 * allocations itself, in which case the launch frees them first. */
static CUresult free_before_launch(const struct sim_graph *exec)
{
	bool auto_free = exec->flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH;
	CUresult rc = CUDA_SUCCESS;
	pthread_mutex_lock(&sim_lock);
	for (size_t i = 0; i < exec->count && rc == CUDA_SUCCESS; i++)
		if (exec->nodes[i].kind == SIM_NODE_ALLOC && exec->nodes[i].allocation->live)
			rc = auto_free ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < exec->count && rc == CUDA_SUCCESS; i++)
		if (exec->nodes[i].kind == SIM_NODE_ALLOC && exec->nodes[i].allocation->live)
			free_locked(exec->nodes[i].allocation);
	pthread_mutex_unlock(&sim_lock);
	return rc;
}

static CUresult untraced_cuGraphLaunch(CUgraphExec handle, CUstream stream)
{
	(void)stream;
	const struct sim_graph *exec = (const struct sim_graph *)handle;
	if (!exec)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult rc = free_before_launch(exec);
	for (size_t i = 0; i < exec->count && rc == CUDA_SUCCESS; i++)
		rc = run_node(&exec->nodes[i]);
	return rc;
}

SIM_EXPORT CUresult cuGraphLaunch(CUgraphExec handle, CUstream stream)
{
	cuGraphLaunch_params params = {handle, stream};
	return SIM_TRACED(cuGraphLaunch, &params, untraced_cuGraphLaunch(handle, stream));
}

static CUresult untraced_cuGraphLaunch_ptsz(CUgraphExec handle, CUstream stream)
{
	return untraced_cuGraphLaunch(handle, stream);
}

SIM_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec handle, CUstream stream)
{
	cuGraphLaunch_ptsz_params params = {handle, stream};
	return SIM_TRACED(cuGraphLaunch_ptsz, &params, untraced_cuGraphLaunch_ptsz(handle, stream));
}

static CUresult untraced_cuDeviceGraphMemTrim(CUdevice device)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	pthread_mutex_lock(&sim_lock);
	struct sim_device *dev = &sim_devices[device];
	dev->charged -= dev->graph_reserved - dev->graph_live;
	dev->graph_reserved = dev->graph_used = dev->graph_live;
	pthread_mutex_unlock(&sim_lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGraphMemTrim(CUdevice device)
{
	cuDeviceGraphMemTrim_params params = {device};
	return SIM_TRACED(cuDeviceGraphMemTrim, &params, untraced_cuDeviceGraphMemTrim(device));
}

static uint64_t *graph_figure(struct sim_device *dev, CUgraphMem_attribute attribute)
{
	switch (attribute) {
	case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT: return &dev->graph_used;
	case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH: return &dev->graph_used_high;
	case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT: return &dev->graph_reserved;
	case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH: return &dev->graph_reserved_high;
	}
	return NULL;
}

SIM_EXPORT CUresult cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attribute,
						 void *value)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	uint64_t *figure = graph_figure(&sim_devices[device], attribute);
	if (!figure || !value)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	*(cuuint64_t *)value = *figure;
	pthread_mutex_unlock(&sim_lock);
	return CUDA_SUCCESS;
}

/* Only the high-water marks can be set, and only to zero. */
SIM_EXPORT CUresult cuDeviceSetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attribute,
						 void *value)
{
	CUresult rc = sim_check_device(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	bool high = attribute == CU_GRAPH_MEM_ATTR_USED_MEM_HIGH ||
		    attribute == CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH;
	if (!high || !value || *(cuuint64_t *)value != 0)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	*graph_figure(&sim_devices[device], attribute) = 0;
	pthread_mutex_unlock(&sim_lock);
	return CUDA_SUCCESS;
}
