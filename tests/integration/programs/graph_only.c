/* All of this program's device memory comes from a graph: an allocation
 * node of 64 MiB and its free node, launched once and never trimmed, so the
 * driver keeps the 64 MiB reserved to the end. */
#include <cuda_runtime_api.h>

#define MiB (1ull << 20)

int main(void)
{
	cudaGraph_t graph;
	cudaGraphNode_t allocation, release;
	cudaGraphExec_t exec;
	struct cudaMemAllocNodeParams params = {0};
	params.poolProps.allocType = cudaMemAllocationTypePinned;
	params.poolProps.location.type = cudaMemLocationTypeDevice;
	params.bytesize = 64 * MiB;
	if (cudaGraphCreate(&graph, 0) ||
	    cudaGraphAddMemAllocNode(&allocation, graph, NULL, 0, &params) ||
	    cudaGraphAddMemFreeNode(&release, graph, &allocation, 1, params.dptr) ||
	    cudaGraphInstantiate(&exec, graph, 0) || cudaGraphLaunch(exec, 0) ||
	    cudaStreamSynchronize(0))
		return 1;
	return 0;
}
