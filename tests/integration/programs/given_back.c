/* Peaks that stand for an instant and end in a call whose free is known
 * only once the driver took it. "vmm": an 8 MiB handle mapped at two
 * addresses and released, then a 2 MiB handle (the peak, 10 MiB), and at
 * once the last unmap ends the first handle. "graph": 10 MiB of device
 * memory, a graph whose launch reserves 8 MiB (the peak, 18 MiB), and at
 * once a trim gives the 8 MiB back. The device view must read each peak
 * before its memory goes back. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <string.h>

#define MiB (1ull << 20)

static CUmemGenericAllocationHandle make(size_t bytes)
{
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	CUmemGenericAllocationHandle handle = 0;
	return cuMemCreate(&handle, bytes, &prop, 0) == CUDA_SUCCESS ? handle : 0;
}

static int vmm(void)
{
	CUcontext context;
	CUdeviceptr base;
	if (cuInit(0) || cuDevicePrimaryCtxRetain(&context, 0) || cuCtxSetCurrent(context) ||
	    cuMemAddressReserve(&base, 32 * MiB, 0, 0, 0))
		return 1;
	CUmemGenericAllocationHandle first = make(8 * MiB);
	if (!first || cuMemMap(base, 8 * MiB, 0, first, 0) ||
	    cuMemMap(base + 16 * MiB, 8 * MiB, 0, first, 0) || cuMemRelease(first) ||
	    cuMemUnmap(base, 8 * MiB))
		return 2;                                    /* still mapped once: still 8 MiB */
	CUmemGenericAllocationHandle second = make(2 * MiB); /* the peak */
	if (!second || cuMemUnmap(base + 16 * MiB, 8 * MiB) || cuMemRelease(second) ||
	    cuMemAddressFree(base, 32 * MiB))
		return 3;
	return 0;
}

static int graph(void)
{
	void *plain;
	cudaGraph_t graph;
	cudaGraphNode_t allocate, free_node;
	cudaGraphExec_t exec;
	struct cudaMemAllocNodeParams params;
	memset(&params, 0, sizeof(params));
	params.poolProps.allocType = cudaMemAllocationTypePinned;
	params.poolProps.location.type = cudaMemLocationTypeDevice;
	params.bytesize = 8 * MiB;
	if (cudaMalloc(&plain, 10 * MiB) || cudaGraphCreate(&graph, 0) ||
	    cudaGraphAddMemAllocNode(&allocate, graph, NULL, 0, &params) ||
	    cudaGraphAddMemFreeNode(&free_node, graph, &allocate, 1, params.dptr) ||
	    cudaGraphInstantiate(&exec, graph, 0))
		return 1;
	if (cudaGraphLaunch(exec, 0) || cudaDeviceGraphMemTrim(0)) /* the peak, then back */
		return 2;
	return cudaFree(plain) ? 3 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "graph") == 0)
		return graph();
	return vmm();
}
