/* Entry points a CUDA 13 driver still exports under their older ABIs, as
 * a program built against older headers (or a loader that finds them by
 * name, as numba does) calls them: contexts, module globals, the JIT
 * linker, copies, cache and shared-memory configuration, and
 * cuGetProcAddress asked for an older version. */
/* The shared-memory bank calls are deprecated, still exported and served. */
#define CUDA_ENABLE_DEPRECATED
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <string.h>

#include "sim_fidelity.h"

/* A kernel and a 64-byte global, as a real driver JIT-compiles them. */
static const char ptx[] = ".version 8.0\n"
			  ".target sm_90\n"
			  ".address_size 64\n"
			  ".visible .global .align 4 .b8 table[64];\n"
			  ".visible .entry touch(.param .u64 out)\n"
			  "{\n"
			  "\tret;\n"
			  "}\n";

typedef CUresult (*context_create_v2)(CUcontext *, unsigned, CUdevice);
typedef CUresult (*context_destroy_v1)(CUcontext);
typedef CUresult (*module_global_v2)(CUdeviceptr *, size_t *, CUmodule, const char *);
typedef CUresult (*copy_async_v2)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
typedef CUresult (*link_create_v2)(unsigned, CUjit_option *, void **, CUlinkState *);
typedef CUresult (*link_add_data_v2)(CUlinkState, CUjitInputType, void *, size_t, const char *,
				     unsigned, CUjit_option *, void **);
typedef CUresult (*link_complete)(CUlinkState, void **, size_t *);
typedef CUresult (*link_destroy)(CUlinkState);

static void *driver;

static void *entry(const char *name)
{
	return driver ? dlsym(driver, name) : NULL;
}

static void contexts(void)
{
	context_create_v2 create = (context_create_v2)entry("cuCtxCreate_v2");
	context_destroy_v1 destroy = (context_destroy_v1)entry("cuCtxDestroy");
	CUcontext context = NULL, current = NULL, before = NULL;
	cuCtxGetCurrent(&before);
	check("cuCtxCreate_v2 makes a current context",
	      create && create(&context, 0, 1) == CUDA_SUCCESS &&
		      cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context);
	CUdevice device = -1;
	check("on its device", cuCtxGetDevice(&device) == CUDA_SUCCESS && device == 1);
	CUfunc_cache cache = CU_FUNC_CACHE_PREFER_NONE;
	check("its cache preference kept",
	      cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_L1) == CUDA_SUCCESS &&
		      cuCtxGetCacheConfig(&cache) == CUDA_SUCCESS &&
		      cache == CU_FUNC_CACHE_PREFER_L1);
	CUsharedconfig banks = CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE;
	check("four-byte shared memory banks",
	      cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE) == CUDA_SUCCESS &&
		      cuCtxGetSharedMemConfig(&banks) == CUDA_SUCCESS &&
		      banks == CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE);
	check("destroyed by cuCtxDestroy", destroy && destroy(context) == CUDA_SUCCESS);
	check("which pops it, back to the context before",
	      cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == before);
	check("pushing a destroyed context",
	      cuCtxPushCurrent(context) == CUDA_ERROR_INVALID_CONTEXT);
	void *old = NULL, *newest = NULL;
	CUdriverProcAddressQueryResult found;
	check("cuGetProcAddress at CUDA 3.2 gives cuCtxCreate_v2",
	      cuGetProcAddress("cuCtxCreate", &old, 3020, 0, &found) == CUDA_SUCCESS &&
		      old == (void *)create);
	check("and at CUDA 12.9 the one-argument cuCtxGetDevice",
	      cuGetProcAddress("cuCtxGetDevice", &old, 12090, 0, &found) == CUDA_SUCCESS &&
		      cuGetProcAddress("cuCtxGetDevice", &newest, 13000, 0, &found) ==
			      CUDA_SUCCESS &&
		      old == entry("cuCtxGetDevice") && newest == entry("cuCtxGetDevice_v2"));
}

/* The thread's context stack: cuCtxSetCurrent replaces its top, and NULL
 * pops it. */
static void context_stack(void)
{
	CUcontext zero, one, current = NULL, popped = NULL;
	cuDevicePrimaryCtxRetain(&zero, 0);
	cuDevicePrimaryCtxRetain(&one, 1);
	cuCtxPushCurrent(zero);
	cuCtxPushCurrent(one);
	check("cuCtxSetCurrent(NULL) pops the top",
	      cuCtxSetCurrent(NULL) == CUDA_SUCCESS && cuCtxGetCurrent(&current) == CUDA_SUCCESS &&
		      current == zero);
	cuCtxPushCurrent(one);
	check("cuCtxSetCurrent replaces the top",
	      cuCtxSetCurrent(zero) == CUDA_SUCCESS && cuCtxPopCurrent(&popped) == CUDA_SUCCESS &&
		      popped == zero && cuCtxGetCurrent(&current) == CUDA_SUCCESS &&
		      current == zero);
	cuCtxPopCurrent(NULL);
	cuDevicePrimaryCtxRelease(1);
	cuDevicePrimaryCtxRelease(0);
}

/* PTX through the JIT linker, as NVRTC's and numba's users link it. */
static CUmodule linked_module(void)
{
	link_create_v2 create = (link_create_v2)entry("cuLinkCreate_v2");
	link_add_data_v2 add = (link_add_data_v2)entry("cuLinkAddData_v2");
	link_complete complete = (link_complete)entry("cuLinkComplete");
	link_destroy destroy = (link_destroy)entry("cuLinkDestroy");
	if (!create || !add || !complete || !destroy)
		return NULL;
	char log[256] = "unwritten";
	CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *values[] = {log, (void *)sizeof(log)};
	CUlinkState link;
	void *image = NULL;
	size_t bytes = 0;
	CUmodule module = NULL;
	check("a link begun", create(2, options, values, &link) == CUDA_SUCCESS);
	check("PTX added", add(link, CU_JIT_INPUT_PTX, (void *)ptx, sizeof(ptx), "touch.ptx", 0,
			       NULL, NULL) == CUDA_SUCCESS);
	check("not PTX refused", add(link, CU_JIT_INPUT_PTX, (void *)"nonsense", 9, "bad.ptx", 0,
				     NULL, NULL) != CUDA_SUCCESS);
	check("linked", complete(link, &image, &bytes) == CUDA_SUCCESS && image && bytes);
	check("and loaded", cuModuleLoadData(&module, image) == CUDA_SUCCESS);
	check("the link ended", destroy(link) == CUDA_SUCCESS);
	return module;
}

typedef CUresult (*begin_capture_v1)(CUstream);
typedef CUresult (*capture_info_v1)(CUstream, CUstreamCaptureStatus *, cuuint64_t *);
typedef CUresult (*add_kernel_node_v1)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
				       const CUDA_KERNEL_NODE_PARAMS_v1 *);
typedef CUresult (*kernel_node_params_v1)(CUgraphNode, CUDA_KERNEL_NODE_PARAMS_v1 *);
typedef CUresult (*exec_update_v1)(CUgraphExec, CUgraph, CUgraphNode *, CUgraphExecUpdateResult *);

/* Capture and kernel nodes as CUDA 10's headers wrote them. */
static void graphs_of_older_abis(CUfunction function)
{
	begin_capture_v1 begin = (begin_capture_v1)entry("cuStreamBeginCapture");
	capture_info_v1 info = (capture_info_v1)entry("cuStreamGetCaptureInfo");
	CUstream stream;
	CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
	cuuint64_t id = 0;
	CUgraph captured = NULL, graph;
	cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
	check("a capture begun without a mode",
	      begin && info && begin(stream) == CUDA_SUCCESS &&
		      info(stream, &status, &id) == CUDA_SUCCESS &&
		      status == CU_STREAM_CAPTURE_STATUS_ACTIVE && id != 0);
	check("and ended", cuStreamEndCapture(stream, &captured) == CUDA_SUCCESS && captured);
	cuGraphDestroy(captured);
	cuStreamDestroy(stream);
	add_kernel_node_v1 add = (add_kernel_node_v1)entry("cuGraphAddKernelNode");
	kernel_node_params_v1 get = (kernel_node_params_v1)entry("cuGraphKernelNodeGetParams");
	exec_update_v1 update = (exec_update_v1)entry("cuGraphExecUpdate");
	CUdeviceptr out = 0;
	void *args[] = {&out};
	CUDA_KERNEL_NODE_PARAMS_v1 params = {function, 2, 1, 1, 32, 1, 1, 0, args, NULL}, read;
	CUgraphNode node, error_node = NULL;
	CUgraphExec exec = NULL;
	CUgraphExecUpdateResult result = CU_GRAPH_EXEC_UPDATE_ERROR;
	memset(&read, 0, sizeof(read));
	cuGraphCreate(&graph, 0);
	check("a kernel node of CUDA 10's parameters",
	      add && get && add(&node, graph, NULL, 0, &params) == CUDA_SUCCESS &&
		      get(node, &read) == CUDA_SUCCESS && read.func == function &&
		      read.gridDimX == 2 && read.blockDimX == 32);
	check("an exec updated by CUDA 10's call",
	      update && cuGraphInstantiate(&exec, graph, 0) == CUDA_SUCCESS &&
		      update(exec, graph, &error_node, &result) == CUDA_SUCCESS &&
		      result == CU_GRAPH_EXEC_UPDATE_SUCCESS);
	if (exec)
		cuGraphExecDestroy(exec);
	cuGraphDestroy(graph);
}

static void module_and_copies(void)
{
	CUcontext primary;
	cuDevicePrimaryCtxRetain(&primary, 0);
	cuCtxPushCurrent(primary);
	CUmodule module = linked_module();
	CUfunction function = NULL;
	check("its kernel found",
	      module && cuModuleGetFunction(&function, module, "touch") == CUDA_SUCCESS);
	check("its cache preference taken",
	      function &&
		      cuFuncSetCacheConfig(function, CU_FUNC_CACHE_PREFER_SHARED) == CUDA_SUCCESS);
	if (function)
		graphs_of_older_abis(function);
	module_global_v2 global = (module_global_v2)entry("cuModuleGetGlobal_v2");
	CUdeviceptr table = 0, copy = 0;
	size_t bytes = 0;
	check("cuModuleGetGlobal_v2 finds a global",
	      global && module && global(&table, &bytes, module, "table") == CUDA_SUCCESS &&
		      table && bytes == 64);
	check("and no other",
	      global && module && global(&table, &bytes, module, "chair") == CUDA_ERROR_NOT_FOUND);
	char text[64] = "global", back[64] = "";
	copy_async_v2 copy_async = (copy_async_v2)entry("cuMemcpyDtoDAsync_v2");
	cuMemAlloc(&copy, sizeof(text));
	check("cuMemcpyDtoDAsync_v2 from a global",
	      copy_async && cuMemcpyHtoD(table, text, sizeof(text)) == CUDA_SUCCESS &&
		      copy_async(copy, table, sizeof(text), NULL) == CUDA_SUCCESS &&
		      cuStreamSynchronize(NULL) == CUDA_SUCCESS &&
		      cuMemcpyDtoH(back, copy, sizeof(back)) == CUDA_SUCCESS &&
		      strcmp(back, "global") == 0);
	cuMemFree(copy);
	if (module)
		cuModuleUnload(module);
	cuCtxPopCurrent(NULL);
	cuDevicePrimaryCtxRelease(0);
}

/* The runtime's deprecated bank calls: four-byte banks, whatever is asked. */
static void runtime_banks(void)
{
	enum cudaSharedMemConfig banks = cudaSharedMemBankSizeDefault;
	check("the runtime's four-byte banks",
	      cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte) == cudaSuccess &&
		      cudaDeviceGetSharedMemConfig(&banks) == cudaSuccess &&
		      banks == cudaSharedMemBankSizeFourByte);
}

void older_entry_points(void)
{
	runtime_banks();
	driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!driver)
		driver = dlopen("libcuda.so.1", RTLD_NOW);
	contexts();
	context_stack();
	module_and_copies();
}
