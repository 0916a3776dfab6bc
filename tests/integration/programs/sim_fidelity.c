/* Behaviours of a real GPU the simulated device must share, beyond
 * allocating: copies into mapped virtual memory and graph memory, streams
 * joining a capture through events, graph allocations freed outside the
 * graph, graph memory figures, host nodes that run, IPC events, texture
 * and array checks, the device profile's figures, zero-byte requests and
 * null pointers. Each check prints its name and whether it behaved as CUDA
 * does. The test runs it with two devices on the H200 profile. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MiB (1ull << 20)

#include "sim_fidelity.h"

static int failures;

void check(const char *what, int ok)
{
	printf("%-48s %s\n", what, ok ? "ok" : "FAILED");
	failures += !ok;
}

static unsigned long long graph_figure(enum cudaGraphMemAttributeType which)
{
	unsigned long long value = ~0ull;
	cudaDeviceGetGraphMemAttribute(0, which, &value);
	return value;
}

static void virtual_memory(void)
{
	CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
				    .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
	size_t granularity = 0;
	cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	CUmemGenericAllocationHandle first, second;
	CUdeviceptr base;
	cuMemCreate(&first, granularity, &prop, 0);
	cuMemCreate(&second, granularity, &prop, 0);
	cuMemAddressReserve(&base, 2 * granularity, 0, 0, 0);
	cuMemMap(base, granularity, 0, first, 0);
	cuMemMap(base + granularity, granularity, 0, second, 0);
	char text[64] = "mapped", back[64] = "";
	check("copy into mapped virtual memory", cuMemcpyHtoD(base, text, sizeof(text)) == 0);
	check("and back", cuMemcpyDtoH(back, base, sizeof(back)) == 0 && !strcmp(back, "mapped"));
	check("a copy across two mappings",
	      cuMemcpyHtoD(base + granularity - 32, text, sizeof(text)) == 0);
	check("a copy past the mappings", cuMemcpyHtoD(base + 2 * granularity - 32, text,
						       sizeof(text)) == CUDA_ERROR_INVALID_VALUE);
	cuMemUnmap(base, granularity);
	check("a copy into unmapped memory",
	      cuMemcpyHtoD(base, text, sizeof(text)) == CUDA_ERROR_INVALID_VALUE);
	cuMemUnmap(base + granularity, granularity);
	cuMemAddressFree(base, 2 * granularity);
	cuMemRelease(first);
	cuMemRelease(second);
}

/* One cuMemUnmap for a range mapped from several handles end to end. */
static void unmap_at_once(void)
{
	CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
				    .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
	size_t granularity = 0, before, after, total;
	cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	CUmemGenericAllocationHandle handles[3];
	CUdeviceptr base;
	cuMemAddressReserve(&base, 3 * granularity, 0, 0, 0);
	cuMemGetInfo(&before, &total);
	for (int i = 0; i < 3; i++) {
		cuMemCreate(&handles[i], granularity, &prop, 0);
		cuMemMap(base + i * granularity, granularity, 0, handles[i], 0);
		cuMemRelease(handles[i]);
	}
	check("part of a mapping not unmapped",
	      cuMemUnmap(base, granularity / 2) == CUDA_ERROR_INVALID_VALUE);
	check("nor past the mappings",
	      cuMemUnmap(base, 4 * granularity) == CUDA_ERROR_INVALID_VALUE);
	check("three handles' mappings unmapped at once",
	      cuMemUnmap(base, 3 * granularity) == CUDA_SUCCESS);
	cuMemGetInfo(&after, &total);
	check("and their memory given back", after == before);
	check("unmapped, not mapped twice",
	      cuMemUnmap(base, granularity) == CUDA_ERROR_INVALID_VALUE);
	cuMemAddressFree(base, 3 * granularity);
}

/* Generic compression, which an H100/H200 supports, as asked and kept. */
static void compression(void)
{
	int supported = 0;
	cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, 0);
	CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
				    .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
	prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
	size_t granularity = 0;
	cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	CUmemGenericAllocationHandle handle;
	CUmemAllocationProp read = {0};
	check("compressible memory made",
	      supported == 1 && cuMemCreate(&handle, granularity, &prop, 0) == CUDA_SUCCESS);
	check("its properties keep the compression",
	      cuMemGetAllocationPropertiesFromHandle(&read, handle) == CUDA_SUCCESS &&
		      read.allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_GENERIC);
	cuMemRelease(handle);
}

/* A graph of one allocation node of bytes on device 0, instantiated;
 * params->dptr is its address once it is added. */
static cudaGraph_t allocating_graph(size_t bytes, struct cudaMemAllocNodeParams *params,
				    cudaGraphExec_t *exec)
{
	cudaGraph_t graph;
	cudaGraphNode_t node;
	*params = (struct cudaMemAllocNodeParams){
		.poolProps = {.allocType = cudaMemAllocationTypePinned,
			      .location = {cudaMemLocationTypeDevice, 0}},
		.bytesize = bytes,
	};
	cudaGraphCreate(&graph, 0);
	cudaGraphAddMemAllocNode(&node, graph, NULL, 0, params);
	cudaGraphInstantiate(exec, graph, 0);
	return graph;
}

static void graph_memory(cudaStream_t stream)
{
	cudaGraphExec_t exec;
	struct cudaMemAllocNodeParams params;
	cudaGraph_t graph = allocating_graph(32 * MiB, &params, &exec);
	check("a launch allocating graph memory", cudaGraphLaunch(exec, stream) == cudaSuccess);
	check("graph memory in use", graph_figure(cudaGraphMemAttrUsedMemCurrent) == 32 * MiB);
	check("a set in graph memory", cudaMemset(params.dptr, 0, MiB) == cudaSuccess);
	check("cudaFree of graph memory", cudaFree(params.dptr) == cudaSuccess);
	/* "Used" is the memory mapped for graphs, which stays until a trim. */
	check("still mapped for graphs", graph_figure(cudaGraphMemAttrUsedMemCurrent) == 32 * MiB);
	check("and still reserved", graph_figure(cudaGraphMemAttrReservedMemCurrent) == 32 * MiB);
	check("its high-water mark", graph_figure(cudaGraphMemAttrUsedMemHigh) == 32 * MiB);
	check("freed twice", cudaFree(params.dptr) == cudaErrorInvalidValue);
	check("launched again",
	      cudaGraphLaunch(exec, stream) == cudaSuccess && cudaFree(params.dptr) == cudaSuccess);
	check("in the same memory",
	      graph_figure(cudaGraphMemAttrUsedMemCurrent) == 32 * MiB &&
		      graph_figure(cudaGraphMemAttrReservedMemHigh) == 32 * MiB);
	cudaGraphExecDestroy(exec);
	cudaGraphDestroy(graph);
	cudaDeviceGraphMemTrim(0);
	check("trimmed", graph_figure(cudaGraphMemAttrReservedMemCurrent) == 0 &&
				 graph_figure(cudaGraphMemAttrUsedMemCurrent) == 0);
	unsigned long long zero = 0;
	cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero);
}

/* A launch may not allocate what an earlier launch left unfreed, unless the
 * graph was instantiated to free it itself at each launch. */
static void relaunch_unfreed(cudaStream_t stream)
{
	cudaGraphExec_t exec;
	struct cudaMemAllocNodeParams params;
	cudaGraph_t graph = allocating_graph(16 * MiB, &params, &exec);
	cudaGraphLaunch(exec, stream);
	check("a relaunch with its allocation unfreed",
	      cudaGraphLaunch(exec, stream) == cudaErrorInvalidValue);
	cudaFree(params.dptr);
	cudaGraphExecDestroy(exec);
	cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch);
	check("freed by the launch itself", cudaGraphLaunch(exec, stream) == cudaSuccess &&
						    cudaGraphLaunch(exec, stream) == cudaSuccess);
	check("in the same memory", graph_figure(cudaGraphMemAttrUsedMemCurrent) == 16 * MiB);
	check("then freed once", cudaFree(params.dptr) == cudaSuccess &&
					 cudaFree(params.dptr) == cudaErrorInvalidValue);
	cudaGraphExecDestroy(exec);
	cudaGraphDestroy(graph);
	cudaDeviceGraphMemTrim(0);
	unsigned long long zero = 0;
	cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero);
	cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero);
}

/* A handle the driver did not hand out, or no longer holds, is refused,
 * never followed. */
static void arrays_freed_wrongly(void)
{
	struct cudaChannelFormatDesc format =
		cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
	cudaArray_t array;
	void *memory;
	cudaMallocArray(&array, &format, 256, 256, 0);
	cudaMalloc(&memory, MiB);
	check("device memory freed as an array",
	      cudaFreeArray((cudaArray_t)memory) == cudaErrorInvalidResourceHandle);
	check("an array freed as a mipmapped one",
	      cudaFreeMipmappedArray((cudaMipmappedArray_t)array) ==
		      cudaErrorInvalidResourceHandle);
	check("an array freed", cudaFreeArray(array) == cudaSuccess);
	check("and freed again", cudaFreeArray(array) == cudaErrorInvalidResourceHandle);
	struct cudaChannelFormatDesc read;
	check("and described after",
	      cudaArrayGetInfo(&read, NULL, NULL, array) == cudaErrorInvalidResourceHandle);
	cudaFree(memory);
}

static void capture_join(cudaStream_t origin, cudaStream_t side)
{
	cudaEvent_t fork, join;
	void *a, *b;
	cudaEventCreate(&fork);
	cudaEventCreate(&join);
	cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal);
	cudaMallocAsync(&a, 8 * MiB, origin);
	cudaEventRecord(fork, origin);
	check("a stream joins by waiting", cudaStreamWaitEvent(side, fork, 0) == cudaSuccess);
	enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
	cudaStreamIsCapturing(side, &status);
	check("and captures", status == cudaStreamCaptureStatusActive);
	cudaMallocAsync(&b, 4 * MiB, side);
	cudaFreeAsync(b, side);
	cudaEventRecord(join, side);
	cudaStreamWaitEvent(origin, join, 0);
	cudaFreeAsync(a, origin);
	cudaGraph_t graph;
	check("the capture ends", cudaStreamEndCapture(origin, &graph) == cudaSuccess);
	size_t count = 0;
	cudaGraphGetNodes(graph, NULL, &count);
	check("with both streams' four memory nodes", count == 4);
	cudaStreamIsCapturing(side, &status);
	check("the joined stream left it", status == cudaStreamCaptureStatusNone);
	cudaGraphExec_t exec;
	cudaGraphInstantiate(&exec, graph, 0);
	check("its launch", cudaGraphLaunch(exec, origin) == cudaSuccess);
	check("peaks at both allocations", graph_figure(cudaGraphMemAttrUsedMemHigh) == 12 * MiB);
	cudaGraphExecDestroy(exec);
	cudaGraphDestroy(graph);
	cudaDeviceGraphMemTrim(0);

	cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal);
	cudaEventRecord(fork, origin);
	cudaStreamWaitEvent(side, fork, 0);
	check("a capture left unjoined",
	      cudaStreamEndCapture(origin, &graph) == cudaErrorStreamCaptureUnjoined);
	cudaGetLastError();
	cudaEventDestroy(fork);
	cudaEventDestroy(join);
}

static void count_up(void *data)
{
	++*(int *)data;
}

static void host_nodes(cudaStream_t stream)
{
	int runs = 0;
	cudaGraph_t graph, clone;
	cudaGraphNode_t first, second;
	struct cudaHostNodeParams params = {count_up, &runs};
	cudaGraphCreate(&graph, 0);
	cudaGraphAddHostNode(&first, graph, NULL, 0, &params);
	cudaGraphNode_t unknown[2] = {first, (cudaGraphNode_t)(uintptr_t)99};
	check("a dependency not in the graph",
	      cudaGraphAddEmptyNode(&second, graph, unknown, 2) == cudaErrorInvalidValue);
	cudaGraphAddEmptyNode(&second, graph, &first, 1);
	cudaGraphClone(&clone, graph);
	size_t count = 0;
	cudaGraphGetNodes(clone, NULL, &count);
	check("a clone has the graph's nodes", count == 2);
	cudaGraphExec_t exec;
	cudaGraphInstantiate(&exec, clone, 0);
	cudaGraphLaunch(exec, stream);
	cudaGraphLaunch(exec, stream);
	check("host nodes run at each launch", runs == 2);
	cudaGraphExecDestroy(exec);
	cudaGraphDestroy(clone);
	cudaGraphDestroy(graph);
}

static void ipc_events(void)
{
	cudaEvent_t timed, shared;
	cudaIpcEventHandle_t handle;
	cudaEventCreate(&timed);
	check("an IPC handle of a timed event",
	      cudaIpcGetEventHandle(&handle, timed) == cudaErrorInvalidValue);
	check("an interprocess event must not time",
	      cudaEventCreateWithFlags(&shared, cudaEventInterprocess) == cudaErrorInvalidValue);
	cudaEventCreateWithFlags(&shared, cudaEventInterprocess | cudaEventDisableTiming);
	check("an IPC handle", cudaIpcGetEventHandle(&handle, shared) == cudaSuccess);
	cudaEvent_t opened;
	check("opened in its own process",
	      cudaIpcOpenEventHandle(&opened, handle) == cudaErrorDeviceUninitialized);
	cudaGetLastError();
	cudaEventDestroy(timed);
	cudaEventDestroy(shared);
}

static void arrays_and_textures(void)
{
	struct cudaChannelFormatDesc desc =
		cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
	cudaArray_t array;
	cudaMallocArray(&array, &desc, 256, 16, 0); /* 16 KiB of floats */
	static float host[4096];
	check("a copy filling the array",
	      cudaMemcpy2DToArray(array, 0, 0, host, 1024, 1024, 16, cudaMemcpyHostToDevice) == 0);
	check("a copy one row too many",
	      cudaMemcpy2DToArray(array, 0, 1, host, 1024, 1024, 16, cudaMemcpyHostToDevice) ==
		      cudaErrorInvalidValue);
	check("a copy out of the array",
	      cudaMemcpy2DFromArray(host, 1024, array, 512, 0, 512, 16, cudaMemcpyDeviceToHost) ==
		      cudaSuccess);
	struct cudaResourceDesc resource = {.resType = cudaResourceTypeArray};
	struct cudaTextureDesc texture = {.filterMode = cudaFilterModePoint};
	cudaTextureObject_t object;
	check("a texture over no array",
	      cudaCreateTextureObject(&object, &resource, &texture, NULL) == cudaErrorInvalidValue);
	resource.res.array.array = array;
	check("a texture over the array",
	      cudaCreateTextureObject(&object, &resource, &texture, NULL) == cudaSuccess);
	cudaSurfaceObject_t surface;
	check("a surface over an array not made for one",
	      cudaCreateSurfaceObject(&surface, &resource) == cudaErrorInvalidValue);
	struct cudaChannelFormatDesc read = {0};
	struct cudaExtent extent = {0};
	unsigned flags = ~0u;
	check("the array's description read back",
	      cudaArrayGetInfo(&read, &extent, &flags, array) == cudaSuccess && read.x == 32 &&
		      read.y == 0 && read.f == cudaChannelFormatKindFloat && extent.width == 256 &&
		      extent.height == 16 && extent.depth == 0 && flags == 0);
	check("its channels", cudaGetChannelDesc(&read, array) == cudaSuccess && read.x == 32);
	check("destroyed", cudaDestroyTextureObject(object) == cudaSuccess);
	check("destroyed twice",
	      cudaDestroyTextureObject(object) == cudaErrorInvalidResourceHandle);
	cudaGetLastError();
	cudaFreeArray(array);
}

static void streams(void)
{
	cudaStream_t stream;
	unsigned flags = 0;
	int priority = 1, device = -1, least, greatest;
	unsigned long long id = 0, other_id = 0, capture_id = 0;
	cudaDeviceGetStreamPriorityRange(&least, &greatest);
	check("priorities from 0 to -5", least == 0 && greatest == -5);
	cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, -9);
	cudaStreamGetFlags(stream, &flags);
	check("a stream's flags", flags == cudaStreamNonBlocking);
	cudaStreamGetPriority(stream, &priority);
	check("its priority, clamped", priority == -5);
	cudaStreamGetDevice(stream, &device);
	check("its device", device == 0);
	cudaStreamGetId(stream, &id);
	cudaStreamGetId(NULL, &other_id);
	check("its id, not the legacy stream's", id > 2 && other_id == 1);
	enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
	cudaStreamGetCaptureInfo(stream, &status, &capture_id, NULL, NULL, NULL, NULL);
	check("not capturing", status == cudaStreamCaptureStatusNone);
	cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
	cudaGraph_t graph = NULL, ended;
	cudaStreamGetCaptureInfo(stream, &status, &capture_id, &graph, NULL, NULL, NULL);
	check("capturing, with an id and a graph",
	      status == cudaStreamCaptureStatusActive && capture_id > 0 && graph != NULL);
	cudaStreamEndCapture(stream, &ended);
	check("the graph it ends with", ended == graph);
	cudaGraphDestroy(ended);
	enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
	cudaThreadExchangeStreamCaptureMode(&mode);
	check("the thread's capture mode, exchanged", mode == cudaStreamCaptureModeGlobal);
	void *managed;
	cudaMallocManaged(&managed, MiB, cudaMemAttachGlobal);
	check("managed memory attached to a stream",
	      cudaStreamAttachMemAsync(stream, managed, 0, cudaMemAttachSingle) == cudaSuccess);
	cudaFree(managed);
	cudaStreamDestroy(stream);
}

static void pool_access(void)
{
	cudaMemPool_t pool;
	cudaDeviceGetDefaultMemPool(&pool, 0);
	struct cudaMemLocation own = {cudaMemLocationTypeDevice, 0};
	struct cudaMemLocation peer = {cudaMemLocationTypeDevice, 1};
	enum cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
	cudaMemPoolGetAccess(&flags, pool, &own);
	check("a pool's own device reads and writes", flags == cudaMemAccessFlagsProtReadWrite);
	cudaMemPoolGetAccess(&flags, pool, &peer);
	check("a peer has no access at first", flags == cudaMemAccessFlagsProtNone);
	struct cudaMemAccessDesc grant = {peer, cudaMemAccessFlagsProtRead};
	check("access granted to a peer", cudaMemPoolSetAccess(pool, &grant, 1) == cudaSuccess);
	cudaMemPoolGetAccess(&flags, pool, &peer);
	check("and read back", flags == cudaMemAccessFlagsProtRead);
	struct cudaMemAccessDesc revoke = {own, cudaMemAccessFlagsProtNone};
	check("the own device's access kept",
	      cudaMemPoolSetAccess(pool, &revoke, 1) == cudaErrorInvalidValue);
	cudaGetLastError();
}

static void peers(void)
{
	int can = -1, value = -1;
	cudaDeviceCanAccessPeer(&can, 0, 1);
	check("device 0 reaches device 1", can == 1);
	cudaDeviceCanAccessPeer(&can, 0, 0);
	check("but not itself, as a peer", can == 0);
	cuDeviceGetP2PAttribute(&value, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1);
	check("peer access supported", value == 1);
	check("peer access enabled", cudaDeviceEnablePeerAccess(1, 0) == cudaSuccess);
	check("enabled twice",
	      cudaDeviceEnablePeerAccess(1, 0) == cudaErrorPeerAccessAlreadyEnabled);
	check("disabled", cudaDeviceDisablePeerAccess(1) == cudaSuccess);
	check("disabled twice", cudaDeviceDisablePeerAccess(1) == cudaErrorPeerAccessNotEnabled);
	int attribute = -1;
	check("the runtime's peer attributes",
	      cudaDeviceGetP2PAttribute(&attribute, cudaDevP2PAttrAccessSupported, 0, 1) ==
			      cudaSuccess &&
		      attribute == 1);
	check("not between a device and itself",
	      cudaDeviceGetP2PAttribute(&attribute, cudaDevP2PAttrAccessSupported, 0, 0) ==
		      cudaErrorInvalidDevice);
	cudaGetLastError();
	cudaGetLastError();
}

static void copies_3d(void)
{
	struct cudaExtent extent = {64, 4, 2}; /* bytes, rows, layers */
	struct cudaPitchedPtr device;
	cudaMalloc3D(&device, extent);
	static char host[2][4][64], back[2][4][64];
	for (int z = 0; z < 2; z++)
		for (int y = 0; y < 4; y++)
			memset(host[z][y], 'a' + z * 4 + y, 64);
	struct cudaMemcpy3DParms up = {.srcPtr = {host, 64, 64, 4},
				       .dstPtr = device,
				       .extent = extent,
				       .kind = cudaMemcpyHostToDevice};
	check("a 3-D copy up", cudaMemcpy3D(&up) == cudaSuccess);
	struct cudaMemcpy3DParms down = {.srcPtr = device,
					 .dstPtr = {back, 64, 64, 4},
					 .extent = extent,
					 .kind = cudaMemcpyDeviceToHost};
	check("and down, the same bytes",
	      cudaMemcpy3D(&down) == cudaSuccess && memcmp(host, back, sizeof(host)) == 0);
	check("a 3-D set", cudaMemset3D(device, 'z', extent) == cudaSuccess &&
				   cudaMemcpy3D(&down) == cudaSuccess && back[1][3][63] == 'z');
	struct cudaChannelFormatDesc desc =
		cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
	cudaArray_t array;
	cudaMalloc3DArray(&array, &desc, (struct cudaExtent){16, 4, 2}, 0);
	struct cudaMemcpy3DParms into = {.srcPtr = {host, 64, 64, 4},
					 .dstArray = array,
					 .extent = {16, 4, 2}, /* floats */
					 .kind = cudaMemcpyHostToDevice};
	check("a 3-D copy into an array", cudaMemcpy3D(&into) == cudaSuccess);
	into.dstPos.z = 1;
	check("one layer too far", cudaMemcpy3D(&into) == cudaErrorInvalidValue);
	cudaGetLastError();
	cudaFreeArray(array);
	cudaFree(device.ptr);
}

static void driver_sets(void)
{
	CUdeviceptr words;
	unsigned short halves[8];
	cuMemAlloc(&words, sizeof(halves));
	check("cuMemsetD16", cuMemsetD16(words, 0xbeef, 8) == CUDA_SUCCESS &&
				     cuMemcpyDtoH(halves, words, sizeof(halves)) == CUDA_SUCCESS &&
				     halves[7] == 0xbeef);
	check("cuMemsetD2D32 within the allocation",
	      cuMemsetD2D32(words, 8, 7, 2, 2) == CUDA_SUCCESS);
	check("cuMemsetD2D32 past it",
	      cuMemsetD2D32(words, 8, 7, 2, 3) == CUDA_ERROR_INVALID_VALUE);
	cuMemFree(words);
}

static void shareable_handles(void)
{
	CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
				    .requestedHandleTypes =
					    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
				    .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
	size_t granularity = 0;
	cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	CUmemGenericAllocationHandle handle, imported, retained;
	cuMemCreate(&handle, granularity, &prop, 0);
	int fd = -1;
	check("a handle exported as a file descriptor",
	      cuMemExportToShareableHandle(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
					   0) == CUDA_SUCCESS &&
		      fd >= 0);
	check("and imported", cuMemImportFromShareableHandle(
				      &imported, (void *)(intptr_t)fd,
				      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) == CUDA_SUCCESS);
	CUmemAllocationProp read = {0};
	cuMemGetAllocationPropertiesFromHandle(&read, imported);
	check("on the exporter's device",
	      read.location.id == 0 &&
		      read.requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUdeviceptr base;
	cuMemAddressReserve(&base, granularity, 0, 0, 0);
	cuMemMap(base, granularity, 0, imported, 0);
	check("the mapped handle retained",
	      cuMemRetainAllocationHandle(&retained, (void *)base) == CUDA_SUCCESS &&
		      retained == imported);
	check("released for each reference",
	      cuMemRelease(retained) == CUDA_SUCCESS && cuMemRelease(imported) == CUDA_SUCCESS);
	check("and no more", cuMemRelease(imported) == CUDA_ERROR_INVALID_VALUE);
	cuMemUnmap(base, granularity);
	cuMemAddressFree(base, granularity);
	close(fd);
	CUmemAllocationProp plain = prop;
	plain.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
	CUmemGenericAllocationHandle unshared;
	cuMemCreate(&unshared, granularity, &plain, 0);
	check("a handle not made for sharing",
	      cuMemExportToShareableHandle(&fd, unshared, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
					   0) == CUDA_ERROR_INVALID_VALUE);
	cuMemRelease(unshared);
	cuMemRelease(handle);
}

static void managed_advice(cudaStream_t stream)
{
	void *managed, *plain;
	cudaMallocManaged(&managed, 4 * MiB, cudaMemAttachGlobal);
	cudaMalloc(&plain, MiB);
	struct cudaMemLocation device1 = {cudaMemLocationTypeDevice, 1};
	struct cudaMemLocation host = {cudaMemLocationTypeHost, 0};
	check("advice on managed memory",
	      cudaMemAdvise(managed, MiB, cudaMemAdviseSetReadMostly, device1) == cudaSuccess &&
		      cudaMemAdvise(managed, MiB, cudaMemAdviseSetPreferredLocation, device1) ==
			      cudaSuccess &&
		      cudaMemAdvise(managed, MiB, cudaMemAdviseSetAccessedBy, device1) ==
			      cudaSuccess);
	check("advice on device memory", cudaMemAdvise(plain, MiB, cudaMemAdviseSetReadMostly,
						       device1) == cudaErrorInvalidValue);
	check("a prefetch to the host",
	      cudaMemPrefetchAsync(managed, MiB, host, 0, stream) == cudaSuccess);
	int read_mostly = -1, preferred = -9, last = -9, accessed[2] = {-9, -9};
	cudaMemRangeGetAttribute(&read_mostly, sizeof(int), cudaMemRangeAttributeReadMostly,
				 managed, MiB);
	cudaMemRangeGetAttribute(&preferred, sizeof(int), cudaMemRangeAttributePreferredLocation,
				 managed, MiB);
	cudaMemRangeGetAttribute(&last, sizeof(int), cudaMemRangeAttributeLastPrefetchLocation,
				 managed, MiB);
	cudaMemRangeGetAttribute(accessed, sizeof(accessed), cudaMemRangeAttributeAccessedBy,
				 managed, MiB);
	check("read back", read_mostly == 1 && preferred == 1 && last == cudaCpuDeviceId &&
				   accessed[0] == 1 && accessed[1] == cudaInvalidDeviceId);
	cudaGetLastError();
	cudaFree(plain);
	cudaFree(managed);
}

static void count_call(cudaStream_t stream, cudaError_t status, void *data)
{
	(void)stream, (void)status;
	++*(int *)data;
}

static void host_work(cudaStream_t stream)
{
	int runs = 0;
	cudaLaunchHostFunc(stream, count_up, &runs);
	check("a host function runs at once", runs == 1);
	cudaStreamAddCallback(stream, count_call, &runs, 0);
	check("and a callback", runs == 2);
	cudaGraph_t graph;
	cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
	cudaLaunchHostFunc(stream, count_up, &runs);
	cudaStreamEndCapture(stream, &graph);
	size_t count = 0;
	cudaGraphGetNodes(graph, NULL, &count);
	check("captured, it is a host node", runs == 2 && count == 1);
	cudaGraphExec_t exec;
	cudaGraphInstantiate(&exec, graph, 0);
	cudaGraphLaunch(exec, stream);
	check("run by the launch", runs == 3);
	cudaGraphExecDestroy(exec);
	cudaGraphDestroy(graph);
	cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
	check("a callback while capturing", cudaStreamAddCallback(stream, count_call, &runs, 0) ==
						    cudaErrorStreamCaptureUnsupported);
	check("breaks the capture",
	      cudaStreamEndCapture(stream, &graph) == cudaErrorStreamCaptureInvalidated);
	cudaGetLastError();
}

static void profile(void)
{
	int device = -1;
	check("a device by its PCI bus id",
	      cudaDeviceGetByPCIBusId(&device, "0000:11:00.0") == cudaSuccess && device == 1);
	check("no device at another",
	      cudaDeviceGetByPCIBusId(&device, "0000:99:00.0") == cudaErrorInvalidValue);
	cudaGetLastError();
	enum cudaFuncCache cache = cudaFuncCachePreferNone;
	cudaDeviceSetCacheConfig(cudaFuncCachePreferShared);
	check("the cache preference kept", cudaDeviceGetCacheConfig(&cache) == cudaSuccess &&
						   cache == cudaFuncCachePreferShared);
	cudaDeviceSetCacheConfig(cudaFuncCachePreferNone);
	int value = 0;
	cudaDeviceGetAttribute(&value, cudaDevAttrCanMapHostMemory, 0);
	check("host memory can be mapped", value == 1);
	cudaDeviceGetAttribute(&value, cudaDevAttrMaxThreadsPerMultiProcessor, 0);
	check("2048 threads per multiprocessor", value == 2048);
	cudaDeviceGetAttribute(&value, cudaDevAttrGlobalMemoryBusWidth, 0);
	size_t free_bytes, total;
	cudaMemGetInfo(&free_bytes, &total);
	/* VRAMSIM_PROFILE=h200 is set by the test. */
	check("an H200's memory bus", value == 6144);
	check("an H200's memory", total == 143771 * MiB);
	struct cudaDeviceProp prop;
	cudaGetDeviceProperties(&prop, 0);
	check("its properties",
	      prop.canMapHostMemory == 1 && prop.memoryBusWidth == 6144 &&
		      prop.maxThreadsPerMultiProcessor == 2048 &&
		      prop.sharedMemPerBlockOptin == 232448 && prop.sharedMemPerBlock == 49152 &&
		      prop.l2CacheSize == 60 << 20 && prop.ipcEventSupported == 1 &&
		      prop.totalGlobalMem == 143771 * MiB);
	check("layered textures, as deviceQuery shows them",
	      prop.maxTexture1DLayered[0] == 32768 && prop.maxTexture1DLayered[1] == 2048 &&
		      prop.maxTexture2DLayered[0] == 32768 &&
		      prop.maxTexture2DLayered[1] == 32768 && prop.maxTexture2DLayered[2] == 2048 &&
		      prop.maxSurface2D[0] == 131072);
}

#ifdef FIDELITY_KERNELS
int fidelity_launch(int which, int *out, int value);

/* One kernel first on device 1 then on 0, another the other way round:
 * the runtime loads the program's module into each device's context. */
static void kernels_on_two_devices(void)
{
	int *out[2] = {NULL, NULL};
	for (int device = 0; device < 2; device++) {
		cudaSetDevice(device);
		cudaMalloc((void **)&out[device], 32 * sizeof(int));
	}
	const int order[2][2] = {{1, 0}, {0, 1}};
	for (int which = 0; which < 2; which++)
		for (int i = 0; i < 2; i++) {
			int device = order[which][i];
			char what[64];
			snprintf(what, sizeof(what), "kernel %d launched on device %d", which,
				 device);
			cudaSetDevice(device);
			check(what, fidelity_launch(which, out[device], 7) == cudaSuccess &&
					    cudaDeviceSynchronize() == cudaSuccess);
		}
	for (int device = 1; device >= 0; device--) {
		cudaSetDevice(device);
		cudaFree(out[device]);
	}
}
#endif

/* Zero bytes: the runtime answers cudaMalloc and cudaMallocHost itself
 * with success and a null pointer; the driver and cudaMallocManaged
 * refuse. Null pointers: every immediate free takes one, as free(NULL)
 * does; unregistering refuses it. */
static void zero_bytes_and_null_pointers(void)
{
	void *pointer = (void *)0x1;
	check("cudaMalloc of 0 bytes", cudaMalloc(&pointer, 0) == cudaSuccess && !pointer);
	pointer = (void *)0x1;
	check("cudaMallocHost of 0 bytes", cudaMallocHost(&pointer, 0) == cudaSuccess && !pointer);
	check("cudaFreeHost(NULL)", cudaFreeHost(NULL) == cudaSuccess);
	check("cudaMallocManaged of 0 bytes",
	      cudaMallocManaged(&pointer, 0, cudaMemAttachGlobal) == cudaErrorInvalidValue);
	CUdeviceptr address;
	check("cuMemAlloc of 0 bytes", cuMemAlloc(&address, 0) == CUDA_ERROR_INVALID_VALUE);
	check("cuMemFree(0)", cuMemFree(0) == CUDA_SUCCESS);
	check("cuMemFreeHost(NULL)", cuMemFreeHost(NULL) == CUDA_SUCCESS);
	check("cudaHostUnregister(NULL)", cudaHostUnregister(NULL) == cudaErrorInvalidValue);
	check("cuMemHostUnregister(NULL)", cuMemHostUnregister(NULL) == CUDA_ERROR_INVALID_VALUE);
	cudaGetLastError();
}

int main(void)
{
	cudaStream_t origin, side;
	if (cudaStreamCreate(&origin) || cudaStreamCreate(&side))
		return 1;
	virtual_memory();
	unmap_at_once();
	compression();
	graph_memory(origin);
	relaunch_unfreed(origin);
	arrays_freed_wrongly();
	capture_join(origin, side);
	host_nodes(origin);
	ipc_events();
	arrays_and_textures();
	streams();
	pool_access();
	peers();
	copies_3d();
	driver_sets();
	shareable_handles();
	managed_advice(origin);
	host_work(origin);
	profile();
	zero_bytes_and_null_pointers();
	older_entry_points();
#ifdef FIDELITY_KERNELS
	kernels_on_two_devices();
#endif
	cudaStreamDestroy(origin);
	cudaStreamDestroy(side);
	return failures ? 1 : 0;
}
