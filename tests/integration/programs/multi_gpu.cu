// Two devices the way multi-GPU programs use them: a kernel launched on
// each (in both orders), peer access and peer copies, a virtual-memory
// range of three handles unmapped at once, and graph memory on each
// device. Prints "multi_gpu: ok" when every result is CUDA's.
#include <cstdio>
#include <cstring>
#include <cuda.h>

#define MiB (1u << 20)

static int failures;

static void expect(const char *what, bool ok)
{
	if (!ok) {
		std::printf("multi_gpu: %s failed\n", what);
		failures++;
	}
}

__global__ void scale(float *x, float by)
{
	x[threadIdx.x] *= by;
}

__global__ void shift(float *x, float by)
{
	x[threadIdx.x] += by;
}

static void kernels(float *buffers[2])
{
	for (int device : {0, 1}) {
		cudaSetDevice(device);
		scale<<<1, 32>>>(buffers[device], 2.0f);
		expect("scale", cudaGetLastError() == cudaSuccess);
	}
	for (int device : {1, 0}) {
		cudaSetDevice(device);
		shift<<<1, 32>>>(buffers[device], 1.0f);
		expect("shift", cudaGetLastError() == cudaSuccess);
		expect("synchronize", cudaDeviceSynchronize() == cudaSuccess);
	}
}

static void peers(float *buffers[2])
{
	int can = 0;
	cudaDeviceCanAccessPeer(&can, 0, 1);
	expect("peer access possible", can == 1);
	cudaSetDevice(0);
	expect("peer access from 0", cudaDeviceEnablePeerAccess(1, 0) == cudaSuccess);
	cudaSetDevice(1);
	expect("peer access from 1", cudaDeviceEnablePeerAccess(0, 0) == cudaSuccess);
	char text[4096], back[4096];
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (char)('a' + i % 26);
	cudaSetDevice(0);
	cudaMemcpy(buffers[0], text, sizeof(text), cudaMemcpyHostToDevice);
	expect("peer copy", cudaMemcpyPeer(buffers[1], 1, buffers[0], 0, sizeof(text)) ==
				    cudaSuccess);
	cudaSetDevice(1);
	cudaMemcpy(back, buffers[1], sizeof(back), cudaMemcpyDeviceToHost);
	expect("peer copy's bytes", std::memcmp(text, back, sizeof(text)) == 0);
	expect("peer copy, async",
	       cudaMemcpyPeerAsync(buffers[0], 0, buffers[1], 1, sizeof(text), 0) == cudaSuccess &&
		       cudaStreamSynchronize(0) == cudaSuccess);
	cudaSetDevice(0);
	cudaDeviceDisablePeerAccess(1);
	cudaSetDevice(1);
	cudaDeviceDisablePeerAccess(0);
}

// On device 1: three handles mapped end to end, released, then unmapped
// by one call, as vectorAddMMAP cleans up.
static void virtual_memory(void)
{
	cudaSetDevice(1);
	cudaFree(0);
	CUmemAllocationProp prop = {};
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, 1};
	size_t granularity = 0;
	cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	CUdeviceptr base;
	expect("reserve", cuMemAddressReserve(&base, 3 * granularity, 0, 0, 0) == CUDA_SUCCESS);
	for (int i = 0; i < 3; i++) {
		CUmemGenericAllocationHandle handle;
		expect("create", cuMemCreate(&handle, granularity, &prop, 0) == CUDA_SUCCESS);
		expect("map", cuMemMap(base + i * granularity, granularity, 0, handle, 0) ==
				      CUDA_SUCCESS);
		cuMemRelease(handle);
	}
	CUmemAccessDesc access = {{CU_MEM_LOCATION_TYPE_DEVICE, 1}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
	cuMemSetAccess(base, 3 * granularity, &access, 1);
	expect("a copy across the mappings",
	       cuMemsetD8(base + granularity - 8, 1, granularity + 16) == CUDA_SUCCESS);
	expect("one unmap for three mappings", cuMemUnmap(base, 3 * granularity) == CUDA_SUCCESS);
	expect("address freed", cuMemAddressFree(base, 3 * granularity) == CUDA_SUCCESS);
	std::printf("multi_gpu: granularity %zu\n", granularity);
}

// A graph allocating (and freeing) bytes on device; its used figure after
// the launch is the memory mapped for it, until trimmed.
static void graph_memory(int device, size_t bytes)
{
	cudaSetDevice(device);
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	cudaGraphNode_t alloc, release;
	cudaMemAllocNodeParams params = {};
	params.poolProps.allocType = cudaMemAllocationTypePinned;
	params.poolProps.location = {cudaMemLocationTypeDevice, device};
	params.bytesize = bytes;
	cudaGraphCreate(&graph, 0);
	cudaGraphAddMemAllocNode(&alloc, graph, NULL, 0, &params);
	cudaGraphAddMemFreeNode(&release, graph, &alloc, 1, params.dptr);
	cudaGraphInstantiate(&exec, graph, 0);
	expect("graph launch", cudaGraphLaunch(exec, 0) == cudaSuccess);
	cudaStreamSynchronize(0);
	unsigned long long used = 0, high = 0;
	cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrUsedMemCurrent, &used);
	cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrUsedMemHigh, &high);
	expect("graph memory mapped", used == bytes && high == bytes);
	cudaGraphExecDestroy(exec);
	cudaGraphDestroy(graph);
	cudaDeviceGraphMemTrim(device);
	cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrUsedMemCurrent, &used);
	expect("graph memory trimmed", used == 0);
}

int main()
{
	int count = 0;
	if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
		std::printf("multi_gpu: needs two devices\n");
		return 77;
	}
	float *buffers[2];
	for (int device : {0, 1}) {
		cudaSetDevice(device);
		expect("cudaMalloc", cudaMalloc(&buffers[device], 16 * MiB) == cudaSuccess);
	}
	kernels(buffers);
	peers(buffers);
	virtual_memory();
	graph_memory(0, 32 * MiB);
	graph_memory(1, 64 * MiB);
	for (int device : {0, 1}) {
		cudaSetDevice(device);
		cudaFree(buffers[device]);
	}
	if (failures)
		return 1;
	std::printf("multi_gpu: ok\n");
	return 0;
}
