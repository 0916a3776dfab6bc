#include "graphs.h"

#include <cuda.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "call.h"
#include "driver_hooks.h"
#include "driver_wrappers.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct vt_graph_view views[VT_VIEW_DEVICES];
static _Atomic uint64_t devices_with_graph_memory; /* one bit per ordinal */

void vt_graphs_note_device(int device)
{
	if (device >= 0 && device < VT_VIEW_DEVICES)
		atomic_fetch_or(&devices_with_graph_memory, 1ull << device);
}

void vt_graphs_sample(void)
{
	uint64_t devices = atomic_load(&devices_with_graph_memory);
	if (!devices)
		return;
	pthread_mutex_lock(&lock);
	for (int device = 0; device < VT_VIEW_DEVICES; device++) {
		struct vt_reserve_figures figures;
		if (!(devices & (1ull << device)) || !vt_driver_graph_figures(device, &figures))
			continue;
		vt_reserve_update(&views[device].memory, &figures);
		views[device].sampled = true;
	}
	pthread_mutex_unlock(&lock);
}

void vt_graphs_read(struct vt_graph_view *out)
{
	pthread_mutex_lock(&lock);
	memcpy(out, views, sizeof(views));
	pthread_mutex_unlock(&lock);
}

void vt_graphs_reset(void)
{
	pthread_mutex_init(&lock, NULL);
	memset(views, 0, sizeof(views));
	atomic_store(&devices_with_graph_memory, 0);
}

typedef CUresult (*add_alloc_node_fn)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
				      CUDA_MEM_ALLOC_NODE_PARAMS *);

VT_EXPORT CUresult cuGraphAddMemAllocNode(CUgraphNode *node, CUgraph graph,
					  const CUgraphNode *dependencies, size_t count,
					  CUDA_MEM_ALLOC_NODE_PARAMS *params)
{
	VT_REAL("cuGraphAddMemAllocNode", VT_LEGACY_STREAM, add_alloc_node_fn);
	CUresult rc = real(node, graph, dependencies, count, params);
	if (rc == CUDA_SUCCESS && params->poolProps.location.type == CU_MEM_LOCATION_TYPE_DEVICE)
		vt_graphs_note_device(params->poolProps.location.id);
	return rc;
}

typedef CUresult (*graph_launch_fn)(CUgraphExec, CUstream);

static CUresult launch(enum vt_stream_flavour flavour, CUgraphExec exec, CUstream stream)
{
	VT_REAL("cuGraphLaunch", flavour, graph_launch_fn);
	CUresult rc = real(exec, stream);
	int saved_errno = errno;
	if (rc == CUDA_SUCCESS)
		vt_graphs_sample();
	errno = saved_errno;
	return rc;
}

VT_EXPORT CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream)
{
	return launch(VT_LEGACY_STREAM, exec, stream);
}

VT_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec exec, CUstream stream)
{
	return launch(VT_PER_THREAD_STREAM, exec, stream);
}

typedef CUresult (*graph_mem_trim_fn)(CUdevice);

VT_EXPORT CUresult cuDeviceGraphMemTrim(CUdevice device)
{
	VT_REAL("cuDeviceGraphMemTrim", VT_LEGACY_STREAM, graph_mem_trim_fn);
	CUresult rc = real(device);
	int saved_errno = errno;
	if (rc == CUDA_SUCCESS)
		vt_graphs_sample();
	errno = saved_errno;
	return rc;
}
