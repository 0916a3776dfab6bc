/* Calls one runtime and one driver function the simulated device does not
 * implement (twice each), then ends well: VRAMSIM_VERBOSE lists them at
 * exit. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>

int main(void)
{
	cudaGraph_t graph;
	if (cudaGraphCreate(&graph, 0) != cudaSuccess)
		return 1;
	for (int i = 0; i < 2; i++) {
		CUtexref reference;
		if (cudaGraphDebugDotPrint(graph, "/dev/null", 0) != cudaErrorNotSupported ||
		    cuTexRefCreate(&reference) != CUDA_ERROR_NOT_SUPPORTED)
			return 1;
	}
	cudaGetLastError();
	cudaGraphDestroy(graph);
	puts("not_simulated: done");
	return 0;
}
