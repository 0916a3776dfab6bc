/* Stand-in runtime: streams, events and host callbacks. Work is never
 * queued, so a callback runs at once and every stream is always idle. */
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
	(void)priority;
	return cudaStreamCreateWithFlags(stream, flags);
}

RT_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	if (least)
		*least = 0;
	if (greatest)
		*greatest = -5;
	return cudaSuccess;
}

RT_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
					  unsigned int flags)
{
	(void)stream, (void)flags;
	return event ? rt_context() : rt_fail(cudaErrorInvalidResourceHandle);
}

RT_EXPORT cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
					       unsigned int flags)
{
	return cudaStreamWaitEvent(stream, event, flags);
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

RT_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t function, void *data)
{
	(void)stream;
	if (!function)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error == cudaSuccess)
		function(data);
	return error;
}

RT_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
					    void *data, unsigned int flags)
{
	if (!callback || flags != 0)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_context();
	if (error == cudaSuccess)
		callback(stream, cudaSuccess, data);
	return error;
}

/* Nothing is ever captured: the simulated device has no graphs. */
RT_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
					    enum cudaStreamCaptureStatus *status)
{
	if (!status)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = cudaStreamQuery(stream);
	if (error == cudaSuccess)
		*status = cudaStreamCaptureStatusNone;
	return error;
}

RT_EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
						 enum cudaStreamCaptureStatus *status)
{
	return cudaStreamIsCapturing(stream, status);
}
