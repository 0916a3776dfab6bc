/* Stream-ordered memory captured into a graph, the usual way graph memory
 * is made: while a stream captures, cudaMallocAsync of A (3 MiB) and B
 * (1 MiB) and their cudaFreeAsync become the graph's memory nodes, and
 * nothing is allocated until the graph runs. Two launches and a trim, on
 * the simulated device (2 MiB granularity): 6 MiB reserved and used at
 * the peak, none after the trim. A plain 1 MiB cudaMalloc and a 2 MiB
 * cudaMallocAsync outside the capture are the only tracked allocations; an
 * 8 MiB one in a capture broken by a synchronize is never made. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#define MiB (1ull << 20)

static int failures;

static void expect(const char *what, long long got, long long want)
{
	if (got == want)
		return;
	fprintf(stderr, "%s: %lld, not %lld\n", what, got, want);
	failures++;
}

static unsigned long long figure(enum cudaGraphMemAttributeType attribute)
{
	unsigned long long value = ~0ull;
	cudaDeviceGetGraphMemAttribute(0, attribute, &value);
	return value;
}

static cudaGraph_t capture(cudaStream_t stream)
{
	void *a, *b;
	cudaGraph_t graph = NULL;
	enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
	if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) ||
	    cudaMallocAsync(&a, 3 * MiB, stream) || cudaMallocAsync(&b, MiB, stream) ||
	    cudaMemsetAsync(a, 0, 3 * MiB, stream) || cudaStreamIsCapturing(stream, &status))
		return NULL;
	expect("capture status", status, cudaStreamCaptureStatusActive);
	expect("graph memory while capturing",
	       (long long)figure(cudaGraphMemAttrReservedMemCurrent), 0);
	if (cudaFreeAsync(a, stream) || cudaFreeAsync(b, stream) ||
	    cudaStreamEndCapture(stream, &graph))
		return NULL;
	return graph;
}

/* Waiting on a capturing stream breaks the capture: what it captured is
 * never allocated, and the capture can only be ended, without a graph. */
static int broken_capture(cudaStream_t stream)
{
	void *lost;
	cudaGraph_t graph = (cudaGraph_t)1;
	enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
	if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) ||
	    cudaMallocAsync(&lost, 8 * MiB, stream))
		return 1;
	expect("synchronizing a capturing stream", cudaStreamSynchronize(stream),
	       cudaErrorStreamCaptureUnsupported);
	expect("is capturing", cudaStreamIsCapturing(stream, &status), cudaSuccess);
	expect("status", status, cudaStreamCaptureStatusInvalidated);
	expect("allocating in it", cudaMallocAsync(&lost, MiB, stream),
	       cudaErrorStreamCaptureInvalidated);
	expect("ending it", cudaStreamEndCapture(stream, &graph),
	       cudaErrorStreamCaptureInvalidated);
	expect("its graph", graph == NULL, 1);
	cudaGetLastError();
	return 0;
}

int main(void)
{
	void *plain, *ordered;
	cudaStream_t stream;
	if (cudaMalloc(&plain, MiB) || cudaStreamCreate(&stream) ||
	    cudaMallocAsync(&ordered, 2 * MiB, stream))
		return 1;
	expect("capturing the legacy stream",
	       cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal),
	       cudaErrorStreamCaptureUnsupported);
	cudaGetLastError();
	if (broken_capture(stream))
		return 1;
	cudaGraph_t graph = capture(stream);
	cudaGraphExec_t exec;
	if (!graph || cudaGraphInstantiate(&exec, graph, 0))
		return 1;
	for (int launch = 0; launch < 2; launch++)
		if (cudaGraphLaunch(exec, stream) || cudaStreamSynchronize(stream))
			return 1;
	expect("reserved after the launches", (long long)figure(cudaGraphMemAttrReservedMemCurrent),
	       6 * MiB);
	expect("used peak", (long long)figure(cudaGraphMemAttrUsedMemHigh), 6 * MiB);
	if (cudaDeviceGraphMemTrim(0) || cudaFreeAsync(ordered, stream) ||
	    cudaStreamSynchronize(stream) || cudaFree(plain))
		return 1;
	expect("reserved after the trim", (long long)figure(cudaGraphMemAttrReservedMemCurrent), 0);
	printf("capture: %s\n", failures ? "FAILED" : "ok");
	return failures != 0;
}
