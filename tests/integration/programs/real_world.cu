// Built by nvcc -cudart shared -lcuda: what a real program does beyond
// allocating, as the CUDA samples do it. Every call must succeed on the
// simulated device; the figures are checked from vramtrace's report.
#include <cuda.h>
#include <cuda_profiler_api.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                   \
	do {                                                                          \
		int rc_ = (int)(call);                                                \
		if (rc_ != 0) {                                                       \
			std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, rc_); \
			return 1;                                                     \
		}                                                                     \
	} while (0)

__global__ void scale(float *x, float factor, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= factor;
}

static std::vector<char> read_file(const char *path)
{
	std::vector<char> bytes;
	FILE *file = std::fopen(path, "rb");
	if (!file)
		return bytes;
	char buf[4096];
	size_t got;
	while ((got = std::fread(buf, 1, sizeof(buf), file)) > 0)
		bytes.insert(bytes.end(), buf, buf + got);
	std::fclose(file);
	return bytes;
}

static int kernels(float *x, int n)
{
	int grid_min = 0, block = 0, per_sm = 0;
	CHECK(cudaOccupancyMaxPotentialBlockSize(&grid_min, &block, scale, 0, 0));
	CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scale, block, 0));
	if (block <= 0 || per_sm <= 0 || grid_min <= 0)
		return 1;
	scale<<<(n + block - 1) / block, block>>>(x, 2.0f, n);
	CHECK(cudaGetLastError());
	scale<<<1, 2048>>>(x, 2.0f, n); // more threads than a block may have
	if (cudaGetLastError() != cudaErrorInvalidConfiguration)
		return 1;
	float factor = 0.5f;
	void *args[] = {&x, &factor, &n};
	CHECK(cudaLaunchCooperativeKernel((void *)scale, grid_min, block, args, 0, nullptr));
	if (cudaLaunchCooperativeKernel((void *)scale, grid_min + 1, block, args, 0, nullptr) !=
	    cudaErrorCooperativeLaunchTooLarge)
		return 1;
	cudaLaunchConfig_t config = {};
	config.gridDim = dim3(4);
	config.blockDim = dim3(128);
	CHECK(cudaLaunchKernelEx(&config, scale, x, 2.0f, n));
	const char *name = nullptr;
	CHECK(cudaFuncGetName(&name, scale));
	cudaFunction_t function = nullptr;
	CHECK(cudaGetFuncBySymbol(&function, (void *)scale));
	if (!name || std::strcmp(name, "_Z5scalePffi") != 0 || !function)
		return 1;
	return 0;
}

static int texture(void)
{
	cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
	cudaArray_t array;
	CHECK(cudaMallocArray(&array, &desc, 1024, 1024)); // 4 MiB
	std::vector<float> host(1024 * 1024, 1.0f);
	CHECK(cudaMemcpyToArray(array, 0, 0, host.data(), host.size() * sizeof(float),
				cudaMemcpyHostToDevice));
	cudaResourceDesc resource = {};
	resource.resType = cudaResourceTypeArray;
	resource.res.array.array = array;
	cudaTextureDesc texture_desc = {};
	texture_desc.addressMode[0] = cudaAddressModeClamp;
	texture_desc.filterMode = cudaFilterModePoint;
	texture_desc.readMode = cudaReadModeElementType;
	cudaTextureObject_t object = 0;
	CHECK(cudaCreateTextureObject(&object, &resource, &texture_desc, nullptr));
	if (object == 0)
		return 1;
	CHECK(cudaDestroyTextureObject(object));
	CHECK(cudaFreeArray(array));
	return 0;
}

static int graph(float *x, int n)
{
	std::vector<float> host(n);
	cudaStream_t stream;
	CHECK(cudaStreamCreate(&stream));
	cudaGraph_t graph;
	CHECK(cudaGraphCreate(&graph, 0));
	float factor = 3.0f;
	void *args[] = {&x, &factor, &n};
	cudaKernelNodeParams params = {};
	params.func = (void *)scale;
	params.gridDim = dim3((n + 255) / 256);
	params.blockDim = dim3(256);
	params.kernelParams = args;
	cudaGraphNode_t kernel_node, copy_node;
	CHECK(cudaGraphAddKernelNode(&kernel_node, graph, nullptr, 0, &params));
	CHECK(cudaGraphAddMemcpyNode1D(&copy_node, graph, &kernel_node, 1, host.data(), x,
				       n * sizeof(float), cudaMemcpyDeviceToHost));
	size_t count = 0, roots = 0;
	CHECK(cudaGraphGetNodes(graph, nullptr, &count));
	CHECK(cudaGraphGetRootNodes(graph, nullptr, &roots));
	cudaGraphNodeType type;
	CHECK(cudaGraphNodeGetType(kernel_node, &type));
	cudaKernelNodeParams read = {};
	CHECK(cudaGraphKernelNodeGetParams(kernel_node, &read));
	if (count != 2 || roots != 1 || type != cudaGraphNodeTypeKernel ||
	    read.func != (void *)scale || read.blockDim.x != 256)
		return 1;
	cudaGraphExec_t exec;
	CHECK(cudaGraphInstantiate(&exec, graph, 0));
	CHECK(cudaGraphLaunch(exec, stream));
	CHECK(cudaStreamSynchronize(stream));
	params.blockDim = dim3(128);
	CHECK(cudaGraphExecKernelNodeSetParams(exec, kernel_node, &params));
	params.blockDim = dim3(2048);
	if (cudaGraphExecKernelNodeSetParams(exec, kernel_node, &params) !=
	    cudaErrorInvalidConfiguration)
		return 1;
	cudaGraph_t clone;
	cudaGraphExecUpdateResultInfo result;
	CHECK(cudaGraphClone(&clone, graph));
	CHECK(cudaGraphExecUpdate(exec, clone, &result));
	cudaGraphNode_t extra;
	CHECK(cudaGraphAddEmptyNode(&extra, clone, nullptr, 0));
	if (cudaGraphExecUpdate(exec, clone, &result) != cudaErrorGraphExecUpdateFailure ||
	    result.result != cudaGraphExecUpdateErrorTopologyChanged)
		return 1;
	cudaGetLastError();
	CHECK(cudaGraphDestroy(clone));
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(graph));
	CHECK(cudaStreamDestroy(stream));
	return 0;
}

static int mapped_and_ipc(void)
{
	int can_map = 0;
	CHECK(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0));
	if (!can_map)
		return 1;
	void *host, *device;
	CHECK(cudaHostAlloc(&host, 16 << 20, cudaHostAllocMapped));
	CHECK(cudaHostGetDevicePointer(&device, host, 0));
	if (device == nullptr)
		return 1;
	cudaEvent_t event;
	CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming | cudaEventInterprocess));
	cudaIpcEventHandle_t handle;
	CHECK(cudaIpcGetEventHandle(&handle, event));
	CHECK(cudaEventDestroy(event));
	CHECK(cudaFreeHost(host));
	return 0;
}

static int module(const char *path)
{
	std::vector<char> image = read_file(path);
	if (image.empty())
		return 1;
	CUmodule module;
	CHECK(cuModuleLoadData(&module, image.data()));
	CUfunction add_one, scale_function;
	CHECK(cuModuleGetFunction(&add_one, module, "add_one"));
	CHECK(cuModuleGetFunction(&scale_function, module, "_Z5scalePffi"));
	CUfunction missing;
	if (cuModuleGetFunction(&missing, module, "no_such_kernel") != CUDA_ERROR_NOT_FOUND)
		return 1;
	CUdeviceptr x;
	int n = 1 << 20;
	CHECK(cuMemAlloc(&x, n * sizeof(float))); // 4 MiB
	void *args[] = {&x, &n};
	CHECK(cuLaunchKernel(add_one, n / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
	if (cuLaunchKernel(add_one, 1, 1, 1, 1025, 1, 1, 0, nullptr, args, nullptr) !=
	    CUDA_ERROR_INVALID_VALUE)
		return 1;
	CHECK(cuCtxSynchronize());
	CHECK(cuMemFree(x));
	CHECK(cuModuleUnload(module));

	// The same image as a library, through the runtime.
	cudaLibrary_t library;
	cudaKernel_t kernel;
	CHECK(cudaLibraryLoadData(&library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
	CHECK(cudaLibraryGetKernel(&kernel, library, "add_one"));
	float *y;
	CHECK(cudaMalloc(&y, n * sizeof(float))); // 4 MiB
	void *runtime_args[] = {&y, &n};
	CHECK(cudaLaunchKernel((const void *)kernel, dim3(n / 256), dim3(256), runtime_args, 0,
			       nullptr));
	CHECK(cudaFree(y));
	CHECK(cudaLibraryUnload(library));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: real_world MODULE.fatbin\n");
		return 2;
	}
	CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
	CHECK(cudaProfilerStart());
	int n = 16 << 20;
	float *x;
	CHECK(cudaMalloc(&x, n * sizeof(float))); // 64 MiB
	if (kernels(x, n) || texture() || graph(x, n) || mapped_and_ipc() || module(argv[1]))
		return 1;
	CHECK(cudaProfilerStop());
	CHECK(cudaFree(x));
	std::puts("real_world: ok");
	return 0;
}
