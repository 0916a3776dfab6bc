/* A graph uploaded before its launch: the upload reserves the 8 MiB its
 * allocation node will take (on the simulated device's 2 MiB granularity,
 * 8 MiB exactly), so the device's graph memory peaks at the upload, and
 * the launch that follows takes it from the reserve. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#define MiB (1ull << 20)

static unsigned long long reserved(void)
{
	unsigned long long value = ~0ull;
	cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &value);
	return value;
}

int main(void)
{
	cudaStream_t stream;
	cudaGraph_t graph;
	cudaGraphNode_t alloc, release;
	cudaGraphExec_t exec;
	struct cudaMemAllocNodeParams params = {
		.poolProps = {.allocType = cudaMemAllocationTypePinned,
			      .location = {cudaMemLocationTypeDevice, 0}},
		.bytesize = 8 * MiB,
	};
	if (cudaStreamCreate(&stream) || cudaGraphCreate(&graph, 0) ||
	    cudaGraphAddMemAllocNode(&alloc, graph, NULL, 0, &params) ||
	    cudaGraphAddMemFreeNode(&release, graph, &alloc, 1, params.dptr) ||
	    cudaGraphInstantiate(&exec, graph, 0))
		return 1;
	if (cudaGraphUpload(exec, stream) || reserved() != 8 * MiB)
		return 2;
	if (cudaGraphLaunch(exec, stream) || cudaStreamSynchronize(stream) || reserved() != 8 * MiB)
		return 3;
	puts("graph_upload: ok");
	return 0;
}
