/* Stand-in runtime: streams, events and host callbacks. Work is never
 * queued, so a callback runs at once and every stream is always idle. */
#include <string.h>

#include "runtime.h"

RT_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamCreate((CUstream *)stream, flags));
}

RT_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
	return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

RT_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamDestroy((CUstream)stream));
}

RT_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamSynchronize((CUstream)stream));
}

RT_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
	return cudaStreamSynchronize(stream);
}

RT_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamQuery((CUstream)stream));
}

RT_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuEventCreate((CUevent *)event, flags));
}

RT_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event)
{
	return cudaEventCreateWithFlags(event, cudaEventDefault);
}

RT_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuEventRecord((CUevent)event, (CUstream)stream));
}

RT_EXPORT cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
	return cudaEventRecord(event, stream);
}

RT_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuEventSynchronize((CUevent)event));
}

RT_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuEventQuery((CUevent)event));
}

RT_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuEventElapsedTime(ms, (CUevent)start, (CUevent)end));
}

RT_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuEventDestroy((CUevent)event));
}

RT_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags,
						   int priority)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamCreateWithPriority((CUstream *)stream, flags, priority));
}

RT_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuCtxGetStreamPriorityRange(least, greatest));
}

/* Queries of a stream, answered by the driver. */
#define STREAM_QUERY(runtime_name, driver_name, type)                                    \
	RT_EXPORT cudaError_t runtime_name(cudaStream_t stream, type out)                \
	{                                                                                \
		cudaError_t error = rt_context();                                        \
		return error == cudaSuccess                                              \
			       ? rt_result(rt_driver.driver_name((CUstream)stream, out)) \
			       : error;                                                  \
	}                                                                                \
	RT_EXPORT cudaError_t runtime_name##_ptsz(cudaStream_t stream, type out)         \
	{                                                                                \
		return runtime_name(stream, out);                                        \
	}

STREAM_QUERY(cudaStreamGetFlags, cuStreamGetFlags, unsigned int *)
STREAM_QUERY(cudaStreamGetPriority, cuStreamGetPriority, int *)
STREAM_QUERY(cudaStreamGetId, cuStreamGetId, unsigned long long *)
STREAM_QUERY(cudaStreamGetDevice, cuStreamGetDevice, int *)

RT_EXPORT cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *ptr, size_t length,
					       unsigned int flags)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamAttachMemAsync((CUstream)stream, (CUdeviceptr)ptr,
							  length, flags));
}

RT_EXPORT cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *ptr, size_t length,
						    unsigned int flags)
{
	return cudaStreamAttachMemAsync(stream, ptr, length, flags);
}

static cudaError_t wait_event(cudaStream_t stream, cudaEvent_t event, unsigned int flags,
			      enum rt_stream_mode mode)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(
		rt_driver.cuStreamWaitEvent[mode]((CUstream)stream, (CUevent)event, flags));
}

RT_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
					  unsigned int flags)
{
	return wait_event(stream, event, flags, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
					       unsigned int flags)
{
	return wait_event(stream, event, flags, RT_PER_THREAD_STREAM);
}

RT_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
					       unsigned int flags)
{
	(void)flags;
	return cudaEventRecord(event, stream);
}

RT_EXPORT cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
						    unsigned int flags)
{
	return cudaEventRecordWithFlags(event, stream, flags);
}

static cudaError_t launch_host_func(cudaStream_t stream, cudaHostFn_t function, void *data,
				    enum rt_stream_mode mode)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuLaunchHostFunc[mode]((CUstream)stream, function, data));
}

RT_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t function, void *data)
{
	return launch_host_func(stream, function, data, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t function,
					      void *data)
{
	return launch_host_func(stream, function, data, RT_PER_THREAD_STREAM);
}

/* The driver's callback takes the runtime's, which differs only in the
 * type of its status: the two share their numbers. */
static cudaError_t add_callback(cudaStream_t stream, cudaStreamCallback_t callback, void *data,
				unsigned int flags, enum rt_stream_mode mode)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamAddCallback[mode](
		(CUstream)stream, (CUstreamCallback)callback, data, flags));
}

RT_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
					    void *data, unsigned int flags)
{
	return add_callback(stream, callback, data, flags, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
						 void *data, unsigned int flags)
{
	return add_callback(stream, callback, data, flags, RT_PER_THREAD_STREAM);
}

bool rt_stream_capturing(cudaStream_t stream)
{
	CUstreamCaptureStatus status;
	return rt_context() == cudaSuccess &&
	       rt_driver.cuStreamIsCapturing[RT_LEGACY_STREAM]((CUstream)stream, &status) ==
		       CUDA_SUCCESS &&
	       status != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* Stream capture: the runtime's modes and statuses share the driver's
 * values. */
static cudaError_t begin_capture(cudaStream_t stream, enum cudaStreamCaptureMode mode,
				 enum rt_stream_mode flavour)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamBeginCapture[flavour]((CUstream)stream,
								 (CUstreamCaptureMode)mode));
}

RT_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
	return begin_capture(stream, mode, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
						  enum cudaStreamCaptureMode mode)
{
	return begin_capture(stream, mode, RT_PER_THREAD_STREAM);
}

static cudaError_t end_capture(cudaStream_t stream, cudaGraph_t *graph, enum rt_stream_mode flavour)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamEndCapture[flavour]((CUstream)stream, (CUgraph *)graph));
}

RT_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph)
{
	return end_capture(stream, graph, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *graph)
{
	return end_capture(stream, graph, RT_PER_THREAD_STREAM);
}

static cudaError_t is_capturing(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
				enum rt_stream_mode flavour)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamIsCapturing[flavour]((CUstream)stream,
								(CUstreamCaptureStatus *)status));
}

RT_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
					    enum cudaStreamCaptureStatus *status)
{
	return is_capturing(stream, status, RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
						 enum cudaStreamCaptureStatus *status)
{
	return is_capturing(stream, status, RT_PER_THREAD_STREAM);
}

RT_EXPORT cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuIpcGetEventHandle((CUipcEventHandle *)handle, (CUevent)event));
}

RT_EXPORT cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	CUipcEventHandle driver_handle;
	memcpy(&driver_handle, &handle, sizeof(driver_handle));
	return rt_result(rt_driver.cuIpcOpenEventHandle((CUevent *)event, driver_handle));
}

static cudaError_t capture_info(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
				unsigned long long *id, cudaGraph_t *graph,
				const cudaGraphNode_t **dependencies,
				const cudaGraphEdgeData **edges, size_t *count,
				enum rt_stream_mode mode)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamGetCaptureInfo[mode](
		(CUstream)stream, (CUstreamCaptureStatus *)status, (cuuint64_t *)id,
		(CUgraph *)graph, (const CUgraphNode **)dependencies,
		(const CUgraphEdgeData **)edges, count));
}

RT_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
					       enum cudaStreamCaptureStatus *status,
					       unsigned long long *id, cudaGraph_t *graph,
					       const cudaGraphNode_t **dependencies,
					       const cudaGraphEdgeData **edges, size_t *count)
{
	return capture_info(stream, status, id, graph, dependencies, edges, count,
			    RT_LEGACY_STREAM);
}

RT_EXPORT cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
						    enum cudaStreamCaptureStatus *status,
						    unsigned long long *id, cudaGraph_t *graph,
						    const cudaGraphNode_t **dependencies,
						    const cudaGraphEdgeData **edges, size_t *count)
{
	return capture_info(stream, status, id, graph, dependencies, edges, count,
			    RT_PER_THREAD_STREAM);
}

RT_EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuThreadExchangeStreamCaptureMode((CUstreamCaptureMode *)mode));
}
