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

/* The addresses of the program's graph allocations, an open-addressed set
 * that only grows: a node's address is fixed for its graph's life, and a
 * free of an address no longer a graph's finds it in the ledger first. */
#define GRAPH_ADDRESSES 8192
static _Atomic uint64_t addresses[GRAPH_ADDRESSES];
static atomic_uint address_count;

static unsigned address_slot(uint64_t address)
{
	return (unsigned)((address * 0x9E3779B97F4A7C15ull) >> 51) & (GRAPH_ADDRESSES - 1);
}

void vt_graphs_note_allocation(int device, uint64_t address)
{
	if (device >= 0 && device < VT_VIEW_DEVICES) {
		pthread_mutex_lock(&lock);
		views[device].allocation_nodes++;
		pthread_mutex_unlock(&lock);
	}
	if (!address || atomic_load(&address_count) >= GRAPH_ADDRESSES / 2)
		return;
	for (unsigned i = address_slot(address);; i = (i + 1) & (GRAPH_ADDRESSES - 1)) {
		uint64_t empty = 0;
		if (atomic_load(&addresses[i]) == address)
			return;
		if (atomic_compare_exchange_strong(&addresses[i], &empty, address)) {
			atomic_fetch_add(&address_count, 1);
			return;
		}
	}
}

bool vt_graphs_is_allocation(uint64_t address)
{
	if (!address || !atomic_load_explicit(&address_count, memory_order_relaxed))
		return false;
	for (unsigned i = address_slot(address);; i = (i + 1) & (GRAPH_ADDRESSES - 1)) {
		uint64_t held = atomic_load(&addresses[i]);
		if (held == address)
			return true;
		if (!held)
			return false;
	}
}

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
	for (unsigned i = 0; i < GRAPH_ADDRESSES; i++)
		atomic_store(&addresses[i], 0);
	atomic_store(&address_count, 0);
	atomic_store(&devices_with_graph_memory, 0);
	atomic_store(&captures_begun, false);
}

static void after_add_alloc_node(const struct vt_observer *self, const void *args, CUresult rc)
{
	(void)self;
	const cuGraphAddMemAllocNode_params *p = args;
	const CUmemLocation *location = &p->nodeParams->poolProps.location;
	if (rc != CUDA_SUCCESS || location->type != CU_MEM_LOCATION_TYPE_DEVICE)
		return;
	vt_graphs_note_device(location->id);
	vt_graphs_note_allocation(location->id, p->nodeParams->dptr);
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
VT_OBSERVER(cuStreamBeginCapture, NULL, after_begin_capture); /* CUDA 10.0's, global */
VT_OBSERVER(cuStreamBeginCapture_ptsz, NULL, after_begin_capture);
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
/* A trim's lower level is read after it, once the memory is gone: the
 * device view's reading at a peak is taken before. */
static void before_trim(const struct vt_observer *self, const void *args)
{
	(void)self, (void)args;
	vt_emit_before_giving_back();
}
VT_OBSERVER(cuDeviceGraphMemTrim, before_trim, after_graph_memory_change);
