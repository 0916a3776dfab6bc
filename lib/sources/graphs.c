#include "graphs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "driver_query.h"
#include "call.h"
#include "observer.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct vt_graph_view views[VT_VIEW_DEVICES];
static _Atomic uint64_t devices_with_graph_memory; /* one bit per ordinal */
static atomic_bool captures_begun;

void vt_graphs_note_device(int device)
{
	if (device >= 0 && device < VT_VIEW_DEVICES)
		atomic_fetch_or(&devices_with_graph_memory, 1ull << device);
}

bool vt_graphs_capturing(void *stream, bool per_thread)
{
	return atomic_load_explicit(&captures_begun, memory_order_relaxed) &&
	       vt_driver_stream_capturing(stream, per_thread);
}

void vt_graphs_sample(const char *api)
{
	uint64_t devices = atomic_load(&devices_with_graph_memory);
	if (!devices)
		return;
	pthread_mutex_lock(&lock);
	for (int device = 0; device < VT_VIEW_DEVICES; device++) {
		struct vt_reserve_figures figures;
		if (!(devices & (1ull << device)) || !vt_driver_graph_figures(device, &figures))
			continue;
		/* What the driver reserves for graphs is the process's device
		 * memory: counted as the kind graph, at its reserved size. */
		if (!views[device].sampled || figures.reserved != views[device].memory.reserved)
			vt_emit_level(VT_KIND_GRAPH, device, figures.reserved, api);
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
	atomic_store(&captures_begun, false);
}

static void after_add_alloc_node(const struct vt_observer *self, const void *args, CUresult rc)
{
	(void)self;
	const cuGraphAddMemAllocNode_params *p = args;
	const CUmemLocation *location = &p->nodeParams->poolProps.location;
	if (rc == CUDA_SUCCESS && location->type == CU_MEM_LOCATION_TYPE_DEVICE)
		vt_graphs_note_device(location->id);
}
VT_OBSERVER(cuGraphAddMemAllocNode, NULL, after_add_alloc_node);

/* From the first capture on, stream-ordered allocations ask whether their
 * stream is capturing. */
static void after_begin_capture(const struct vt_observer *self, const void *args, CUresult rc)
{
	(void)self, (void)args;
	if (rc == CUDA_SUCCESS)
		atomic_store(&captures_begun, true);
}
VT_OBSERVER(cuStreamBeginCapture_v2, NULL, after_begin_capture);
VT_OBSERVER(cuStreamBeginCapture_v2_ptsz, NULL, after_begin_capture);
VT_OBSERVER(cuStreamBeginCaptureToGraph, NULL, after_begin_capture);
VT_OBSERVER(cuStreamBeginCaptureToGraph_ptsz, NULL, after_begin_capture);

typedef CUresult (*begin_capture_to_graph_fn)(CUstream, CUgraph, const CUgraphNode *,
					      const CUgraphEdgeData *, size_t, CUstreamCaptureMode);

/* A launch allocates and frees graph memory, an upload reserves it ahead
 * of the launch; a trim returns it. */
static void after_graph_memory_change(const struct vt_observer *self, const void *args, CUresult rc)
{
	(void)args;
	if (rc == CUDA_SUCCESS)
		vt_graphs_sample(self->name);
}
VT_OBSERVER(cuGraphLaunch, NULL, after_graph_memory_change);
VT_OBSERVER(cuGraphLaunch_ptsz, NULL, after_graph_memory_change);
VT_OBSERVER(cuGraphUpload, NULL, after_graph_memory_change);
VT_OBSERVER(cuGraphUpload_ptsz, NULL, after_graph_memory_change);
VT_OBSERVER(cuDeviceGraphMemTrim, NULL, after_graph_memory_change);
