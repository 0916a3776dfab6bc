/* In the pattern of a graph whose memory is freed outside it: two graphs
 * each allocate 32 MiB through an allocation node and leave it allocated;
 * the program frees one with cudaFreeAsync and one with cudaFree, never
 * trims, and ends. The pool keeps its reservation: not the program's leak. */
#include <cuda_runtime_api.h>

#define MiB (1ull << 20)

static int launch_one(cudaStream_t stream, void **out)
{
	cudaGraph_t graph;
	cudaGraphNode_t node;
	cudaGraphExec_t exec;
	struct cudaMemAllocNodeParams params = {0};
	params.poolProps.allocType = cudaMemAllocationTypePinned;
	params.poolProps.location.type = cudaMemLocationTypeDevice;
	params.bytesize = 32 * MiB;
	if (cudaGraphCreate(&graph, 0) ||
	    cudaGraphAddMemAllocNode(&node, graph, NULL, 0, &params) ||
	    cudaGraphInstantiate(&exec, graph, 0) || cudaGraphLaunch(exec, stream) ||
	    cudaStreamSynchronize(stream))
		return 1;
	*out = params.dptr;
	return 0;
}

int main(void)
{
	cudaStream_t stream;
	void *first, *second;
	if (cudaStreamCreate(&stream) || launch_one(stream, &first) || launch_one(stream, &second))
		return 1;
	if (cudaFreeAsync(first, stream) || cudaStreamSynchronize(stream) || cudaFree(second))
		return 2;
	return 0;
}
