/* Stand-in driver: streams and events. Work is
 * never queued, so every stream and event is always complete. A created
 * stream can be captured into a graph (the legacy and per-thread default
 * streams cannot, as on the real driver); while it captures, its
 * stream-ordered allocations and frees become memory nodes of that graph
 * and its other work is recorded nowhere. Another stream joins the capture
 * by waiting on an event recorded in it, and must be joined back (the
 * capturing stream waits on an event recorded in it) before it ends. */
#include <stdlib.h>
#include <time.h>

#include "sim.h"

struct sim_stream {
	int device;
	unsigned flags;
	int priority;
	unsigned long long id;
	CUgraph capture;           /* the graph being captured into, or NULL */
	struct sim_stream *origin; /* the stream that began the capture */
	/* On the origin: the capture's id; whether it broke, and can only be
	 * ended; the streams that joined it. */
	unsigned long long capture_id;
	bool invalidated;
	struct sim_stream **joined;
	size_t joined_count;
	bool rejoined; /* on a joined stream: the origin waited on its work */
};

static void leave_capture(struct sim_stream *stream);

/* The default streams are never created, never captured. */
static struct sim_stream *created_stream(CUstream stream)
{
	uintptr_t handle = (uintptr_t)stream;
	return handle == 0 || handle == (uintptr_t)CU_STREAM_LEGACY ||
			       handle == (uintptr_t)CU_STREAM_PER_THREAD
		       ? NULL
		       : (struct sim_stream *)stream;
}

CUgraph sim_stream_capture(CUstream stream)
{
	struct sim_stream *created = created_stream(stream);
	return created ? created->capture : NULL;
}

CUresult sim_stream_capture_graph(CUstream stream, CUgraph *graph)
{
	struct sim_stream *created = created_stream(stream);
	*graph = created ? created->capture : NULL;
	return *graph && created->origin->invalidated ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
						      : CUDA_SUCCESS;
}

struct sim_event {
	int device; /* its context's */
	struct timespec recorded;
	unsigned flags;
	struct sim_stream *captured_in; /* recorded in a capturing stream */
	CUgraph capture;                /* that capture's graph */
};

/* Stream ids start after the two default streams' (1 and 2); capture
 * ids count from 1. */
static _Atomic unsigned long long next_stream_id = 3, next_capture_id = 1;

/* A Hopper GPU's priorities run from 0 (least) to -5 (greatest); others
 * are clamped into that range, as on the real driver. */
#define LEAST_PRIORITY    0
#define GREATEST_PRIORITY (-5)

SIM_EXPORT CUresult cuStreamCreateWithPriority(CUstream *stream, unsigned int flags, int priority)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!stream || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_stream *created = calloc(1, sizeof(*created));
	if (!created)
		return CUDA_ERROR_OUT_OF_MEMORY;
	created->device = device;
	created->flags = flags;
	created->priority = priority > LEAST_PRIORITY      ? LEAST_PRIORITY
			    : priority < GREATEST_PRIORITY ? GREATEST_PRIORITY
							   : priority;
	created->id = next_stream_id++;
	*stream = (CUstream)created;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned int flags)
{
	return cuStreamCreateWithPriority(stream, flags, LEAST_PRIORITY);
}

SIM_EXPORT CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (least)
		*least = LEAST_PRIORITY;
	if (greatest)
		*greatest = GREATEST_PRIORITY;
	return CUDA_SUCCESS;
}

/* What a query of a stream reads: a created stream, or a default one
 * (NULL, whose figures are the defaults'). */
static CUresult query_stream(CUstream stream, const void *out, struct sim_stream **created)
{
	*created = NULL;
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	*created = created_stream(stream);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamGetFlags(CUstream stream, unsigned int *flags)
{
	struct sim_stream *created;
	CUresult rc = query_stream(stream, flags, &created);
	if (rc == CUDA_SUCCESS)
		*flags = created ? created->flags : 0;
	return rc;
}

SIM_EXPORT CUresult cuStreamGetPriority(CUstream stream, int *priority)
{
	struct sim_stream *created;
	CUresult rc = query_stream(stream, priority, &created);
	if (rc == CUDA_SUCCESS)
		*priority = created ? created->priority : LEAST_PRIORITY;
	return rc;
}

SIM_EXPORT CUresult cuStreamGetId(CUstream stream, unsigned long long *id)
{
	struct sim_stream *created;
	CUresult rc = query_stream(stream, id, &created);
	if (rc == CUDA_SUCCESS)
		*id = created                                                ? created->id
		      : (uintptr_t)stream == (uintptr_t)CU_STREAM_PER_THREAD ? 2
									     : 1;
	return rc;
}

SIM_EXPORT CUresult cuStreamGetDevice(CUstream stream, CUdevice *device)
{
	return sim_stream_device(stream, device);
}

CUresult sim_stream_device(CUstream stream, int *device)
{
	struct sim_stream *created = NULL;
	CUresult rc = query_stream(stream, device, &created);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (created) {
		*device = created->device;
		return CUDA_SUCCESS;
	}
	int current; /* a default stream is the current context's */
	rc = sim_current_device(&current);
	if (rc == CUDA_SUCCESS)
		*device = current;
	return rc;
}

/* Managed memory is visible to every stream here: attaching is checked,
 * then changes nothing. */
SIM_EXPORT CUresult cuStreamAttachMemAsync(CUstream stream, CUdeviceptr dptr, size_t length,
					   unsigned int flags)
{
	(void)stream, (void)length;
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	bool known = flags == CU_MEM_ATTACH_GLOBAL || flags == CU_MEM_ATTACH_HOST ||
		     flags == CU_MEM_ATTACH_SINGLE;
	return dptr && known ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuStreamDestroy(CUstream stream)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_stream *created = created_stream(stream);
	if (!created)
		return CUDA_ERROR_INVALID_HANDLE;
	if (created->capture && created->origin != created)
		leave_capture(created);
	free(created->joined);
	free(created);
	return CUDA_SUCCESS;
}

/* Waiting on a capturing stream is not allowed (nothing runs until the
 * graph is launched), and breaks the capture, as on the real driver. */
static CUresult stream_complete(CUstream stream)
{
	CUresult rc = sim_check_init();
	struct sim_stream *created = created_stream(stream);
	if (rc != CUDA_SUCCESS || !created || !created->capture)
		return rc;
	created->origin->invalidated = true;
	return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}

/* A synchronize, not a query, trims the memory pools (driver_pool.c). */
SIM_EXPORT CUresult cuStreamSynchronize(CUstream stream)
{
	CUresult rc = stream_complete(stream);
	int device;
	if (rc == CUDA_SUCCESS && sim_stream_device(stream, &device) == CUDA_SUCCESS)
		sim_pools_synchronized(device);
	return rc;
}

SIM_EXPORT CUresult cuStreamQuery(CUstream stream)
{
	return stream_complete(stream);
}

static CUresult join_capture(struct sim_stream *stream, struct sim_stream *origin)
{
	struct sim_stream **grown =
		realloc(origin->joined, (origin->joined_count + 1) * sizeof(*grown));
	if (!grown)
		return CUDA_ERROR_OUT_OF_MEMORY;
	origin->joined = grown;
	origin->joined[origin->joined_count++] = stream;
	stream->capture = origin->capture;
	stream->origin = origin;
	stream->rejoined = false;
	return CUDA_SUCCESS;
}

static void leave_capture(struct sim_stream *stream)
{
	struct sim_stream *origin = stream->origin;
	for (size_t i = 0; i < origin->joined_count; i++)
		if (origin->joined[i] == stream)
			origin->joined[i] = origin->joined[--origin->joined_count];
	stream->capture = NULL;
}

static CUresult begin_capture(CUstream stream, CUstreamCaptureMode mode)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_stream *created = created_stream(stream);
	if (!created)
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
	    mode != CU_STREAM_CAPTURE_MODE_RELAXED)
		return CUDA_ERROR_INVALID_VALUE;
	if (created->capture)
		return CUDA_ERROR_ILLEGAL_STATE;
	created->origin = created;
	created->capture_id = next_capture_id++;
	created->invalidated = false;
	created->joined_count = 0;
	return cuGraphCreate(&created->capture, 0);
}

SIM_EXPORT CUresult cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode mode)
{
	cuStreamBeginCapture_v2_params params = {stream, mode};
	return SIM_TRACED(cuStreamBeginCapture_v2, &params, begin_capture(stream, mode));
}

SIM_EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream stream, CUstreamCaptureMode mode)
{
	cuStreamBeginCapture_v2_ptsz_params params = {stream, mode};
	return SIM_TRACED(cuStreamBeginCapture_v2_ptsz, &params, begin_capture(stream, mode));
}

static CUresult end_capture(CUstream stream, CUgraph *graph)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_stream *created = created_stream(stream);
	if (!graph)
		return CUDA_ERROR_INVALID_VALUE;
	if (!created || !created->capture)
		return CUDA_ERROR_ILLEGAL_STATE;
	if (created->origin != created)
		return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
	bool unjoined = false;
	for (size_t i = 0; i < created->joined_count; i++) {
		unjoined |= !created->joined[i]->rejoined;
		created->joined[i]->capture = NULL;
	}
	created->joined_count = 0;
	bool invalidated = created->invalidated || unjoined;
	*graph = invalidated ? NULL : created->capture;
	if (invalidated)
		cuGraphDestroy(created->capture);
	created->capture = NULL;
	created->invalidated = false;
	if (unjoined)
		return CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
	return invalidated ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED : CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph)
{
	cuStreamEndCapture_params params = {stream, graph};
	return SIM_TRACED(cuStreamEndCapture, &params, end_capture(stream, graph));
}

SIM_EXPORT CUresult cuStreamEndCapture_ptsz(CUstream stream, CUgraph *graph)
{
	cuStreamEndCapture_ptsz_params params = {stream, graph};
	return SIM_TRACED(cuStreamEndCapture_ptsz, &params, end_capture(stream, graph));
}

static CUresult is_capturing(CUstream stream, CUstreamCaptureStatus *status)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!status)
		return CUDA_ERROR_INVALID_VALUE;
	CUgraph graph;
	rc = sim_stream_capture_graph(stream, &graph);
	*status = !graph               ? CU_STREAM_CAPTURE_STATUS_NONE
		  : rc == CUDA_SUCCESS ? CU_STREAM_CAPTURE_STATUS_ACTIVE
				       : CU_STREAM_CAPTURE_STATUS_INVALIDATED;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus *status)
{
	cuStreamIsCapturing_params params = {stream, status};
	return SIM_TRACED(cuStreamIsCapturing, &params, is_capturing(stream, status));
}

SIM_EXPORT CUresult cuStreamIsCapturing_ptsz(CUstream stream, CUstreamCaptureStatus *status)
{
	cuStreamIsCapturing_ptsz_params params = {stream, status};
	return SIM_TRACED(cuStreamIsCapturing_ptsz, &params, is_capturing(stream, status));
}

/* An event shared between processes keeps no time. */
SIM_EXPORT CUresult cuEventCreate(CUevent *event, unsigned int flags)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
	if (!event || (flags & ~known) ||
	    ((flags & CU_EVENT_INTERPROCESS) && !(flags & CU_EVENT_DISABLE_TIMING)))
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_event *created = calloc(1, sizeof(*created));
	if (!created)
		return CUDA_ERROR_OUT_OF_MEMORY;
	created->device = device;
	created->flags = flags;
	*event = (CUevent)created;
	return CUDA_SUCCESS;
}

unsigned sim_event_flags(CUevent event)
{
	return ((const struct sim_event *)event)->flags;
}

SIM_EXPORT CUresult cuEventRecord(CUevent handle, CUstream stream)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_event *event = (struct sim_event *)handle;
	if (!event)
		return CUDA_ERROR_INVALID_HANDLE;
	struct sim_stream *created = created_stream(stream);
	event->captured_in = created && created->capture ? created : NULL;
	event->capture = event->captured_in ? created->capture : NULL;
	if (!event->captured_in)
		clock_gettime(CLOCK_MONOTONIC, &event->recorded);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuEventRecordWithFlags(CUevent handle, CUstream stream, unsigned int flags)
{
	if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL)
		return CUDA_ERROR_INVALID_VALUE;
	return cuEventRecord(handle, stream);
}

/* Waiting on an event recorded in a capture joins that capture; the
 * capturing stream waiting on a joined stream's event joins it back. */
static CUresult wait_event(CUstream stream, CUevent handle, unsigned flags)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_event *event = (struct sim_event *)handle;
	if (!event)
		return CUDA_ERROR_INVALID_HANDLE;
	if (flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_stream *waiting = created_stream(stream);
	struct sim_stream *recorder = event->captured_in;
	bool live = recorder && recorder->capture == event->capture;
	if (!live)
		return CUDA_SUCCESS;
	if (!waiting)
		return CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
	if (!waiting->capture)
		return join_capture(waiting, recorder->origin);
	if (waiting->capture != event->capture)
		return CUDA_ERROR_STREAM_CAPTURE_MERGE;
	if (waiting == waiting->origin && recorder != waiting)
		recorder->rejoined = true;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags)
{
	return wait_event(stream, event, flags);
}

SIM_EXPORT CUresult cuStreamWaitEvent_ptsz(CUstream stream, CUevent event, unsigned int flags)
{
	return wait_event(stream, event, flags);
}

static CUresult event_complete(CUevent event)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	return event ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* A synchronize, not a query, trims the memory pools (driver_pool.c). */
SIM_EXPORT CUresult cuEventSynchronize(CUevent event)
{
	CUresult rc = event_complete(event);
	if (rc == CUDA_SUCCESS)
		sim_pools_synchronized(((const struct sim_event *)event)->device);
	return rc;
}

SIM_EXPORT CUresult cuEventQuery(CUevent event)
{
	return event_complete(event);
}

SIM_EXPORT CUresult cuEventElapsedTime(float *milliseconds, CUevent start, CUevent end)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!milliseconds)
		return CUDA_ERROR_INVALID_VALUE;
	if (!start || !end)
		return CUDA_ERROR_INVALID_HANDLE;
	const struct timespec *a = &((struct sim_event *)start)->recorded;
	const struct timespec *b = &((struct sim_event *)end)->recorded;
	*milliseconds = (float)((double)(b->tv_sec - a->tv_sec) * 1e3 +
				(double)(b->tv_nsec - a->tv_nsec) / 1e6);
	return CUDA_SUCCESS;
}

/* The 2000 ABI keeps the unversioned name, which cuda.h maps to _v2. */
#undef cuEventElapsedTime
SIM_EXPORT CUresult cuEventElapsedTime(float *milliseconds, CUevent start, CUevent end);
SIM_EXPORT CUresult cuEventElapsedTime(float *milliseconds, CUevent start, CUevent end)
{
	return cuEventElapsedTime_v2(milliseconds, start, end);
}

SIM_EXPORT CUresult cuEventDestroy(CUevent event)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!event)
		return CUDA_ERROR_INVALID_HANDLE;
	free(event);
	return CUDA_SUCCESS;
}

/* A capture's status and id, and (as nothing runs) no dependencies. */
static CUresult capture_info(CUstream stream, CUstreamCaptureStatus *status, cuuint64_t *id,
			     CUgraph *graph, const CUgraphNode **dependencies,
			     const CUgraphEdgeData **edges, size_t *count)
{
	CUresult rc = is_capturing(stream, status);
	if (rc != CUDA_SUCCESS || *status == CU_STREAM_CAPTURE_STATUS_NONE)
		return rc;
	struct sim_stream *created = created_stream(stream);
	if (id)
		*id = created->origin->capture_id;
	if (graph)
		*graph = created->capture;
	if (dependencies)
		*dependencies = NULL;
	if (edges)
		*edges = NULL;
	if (count)
		*count = 0;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamGetCaptureInfo_v3(CUstream stream, CUstreamCaptureStatus *status,
					      cuuint64_t *id, CUgraph *graph,
					      const CUgraphNode **dependencies,
					      const CUgraphEdgeData **edges, size_t *count)
{
	return capture_info(stream, status, id, graph, dependencies, edges, count);
}

SIM_EXPORT CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream stream, CUstreamCaptureStatus *status,
						   cuuint64_t *id, CUgraph *graph,
						   const CUgraphNode **dependencies,
						   const CUgraphEdgeData **edges, size_t *count)
{
	return capture_info(stream, status, id, graph, dependencies, edges, count);
}

/* Capture modes are kept per thread; the simulated device never refuses an
 * unsafe call for one, so the mode is only exchanged. */
static __thread CUstreamCaptureMode thread_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

SIM_EXPORT CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!mode || *mode > CU_STREAM_CAPTURE_MODE_RELAXED)
		return CUDA_ERROR_INVALID_VALUE;
	CUstreamCaptureMode previous = thread_capture_mode;
	thread_capture_mode = *mode;
	*mode = previous;
	return CUDA_SUCCESS;
}

/* Host work runs at once, as nothing is queued; while a stream captures, a
 * host function becomes a host node of the graph, and a stream callback
 * (which the real driver does not capture) breaks the capture. */
static CUresult launch_host_func(CUstream stream, CUhostFn function, void *data)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!function)
		return CUDA_ERROR_INVALID_VALUE;
	CUgraph graph;
	rc = sim_stream_capture_graph(stream, &graph);
	if (rc != CUDA_SUCCESS || graph)
		return rc != CUDA_SUCCESS ? rc : sim_graph_capture_host(graph, function, data);
	function(data);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuLaunchHostFunc(CUstream stream, CUhostFn function, void *data)
{
	return launch_host_func(stream, function, data);
}

SIM_EXPORT CUresult cuLaunchHostFunc_ptsz(CUstream stream, CUhostFn function, void *data)
{
	return launch_host_func(stream, function, data);
}

static CUresult add_callback(CUstream stream, CUstreamCallback callback, void *data, unsigned flags)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!callback || flags)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_stream *created = created_stream(stream);
	if (created && created->capture) {
		created->origin->invalidated = true;
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	}
	callback(stream, CUDA_SUCCESS, data);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamAddCallback(CUstream stream, CUstreamCallback callback, void *data,
					unsigned int flags)
{
	return add_callback(stream, callback, data, flags);
}

SIM_EXPORT CUresult cuStreamAddCallback_ptsz(CUstream stream, CUstreamCallback callback, void *data,
					     unsigned int flags)
{
	return add_callback(stream, callback, data, flags);
}
