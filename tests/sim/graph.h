/* The simulated driver's graphs, shared by driver_graph.c (building,
 * copying and launching them) and driver_graph_nodes.c (what a node says
 * of itself, and changing its parameters). */
#pragma once

#include "sim.h"

struct sim_graph_allocation {
	uintptr_t address;
	uint64_t bytes, charge;
	int device;
	bool live;
	struct sim_graph_allocation *next;
};

enum sim_node_kind { SIM_NODE_ALLOC, SIM_NODE_FREE, SIM_NODE_WORK, SIM_NODE_HOST };

struct sim_node {
	enum sim_node_kind kind;
	CUgraphNodeType type;
	size_t dependencies;
	struct sim_graph_allocation *allocation; /* for SIM_NODE_ALLOC and SIM_NODE_FREE */
	CUDA_HOST_NODE_PARAMS host;              /* for SIM_NODE_HOST */
	CUDA_KERNEL_NODE_PARAMS kernel;          /* for a kernel node */
};

/* A graph, or an executable graph (a copy of its source's nodes). */
struct sim_graph {
	uint32_t id;
	uint32_t source;          /* the graph it was copied from, or 0 */
	unsigned long long flags; /* an executable graph's instantiation flags */
	struct sim_node *nodes;
	size_t count;
	struct sim_graph *next; /* in the list of live graphs */
};

/* A node handle names its graph and its place: (id << 32) | (index + 1),
 * so that one graph's node is never taken for another's. */
static inline CUgraphNode sim_node_handle(const struct sim_graph *graph, size_t index)
{
	return (CUgraphNode)(((uintptr_t)graph->id << 32) | (index + 1));
}

static inline uint32_t sim_handle_graph(CUgraphNode node)
{
	return (uint32_t)((uintptr_t)node >> 32);
}

static inline size_t sim_handle_index(CUgraphNode node)
{
	return ((uintptr_t)node & 0xffffffffu) - 1;
}

/* Called with sim_lock held: the node behind a handle, or NULL. */
struct sim_node *sim_node_locked(CUgraphNode handle);
/* A real GPU's checks of a kernel's launch, for a kernel node. */
CUresult sim_check_kernel(const CUDA_KERNEL_NODE_PARAMS *params);
