/* The rest of the runtime a typical CUDA program touches, on the simulated
 * device: each check prints its name and whether it behaved as CUDA does. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

static int failures;

static void check(const char *what, int ok)
{
	printf("%-40s %s\n", what, ok ? "ok" : "FAILED");
	failures += !ok;
}

static void host_callback(void *data)
{
	++*(int *)data;
}

static void copies(void)
{
	char host[4][16] = {"row0", "row1", "row2", "row3"}, back[4][16];
	void *device;
	size_t pitch;
	check("cudaMallocPitch", cudaMallocPitch(&device, &pitch, 16, 4) == cudaSuccess);
	check("cudaMemcpy2D to device",
	      cudaMemcpy2D(device, pitch, host, 16, 16, 4, cudaMemcpyHostToDevice) == cudaSuccess);
	memset(back, 0, sizeof(back));
	check("cudaMemcpy2D back",
	      cudaMemcpy2D(back, 16, device, pitch, 16, 4, cudaMemcpyDeviceToHost) == cudaSuccess &&
		      memcmp(host, back, sizeof(host)) == 0);
	check("cudaMemcpy2D width > pitch",
	      cudaMemcpy2D(back, 8, device, pitch, 16, 4, cudaMemcpyDeviceToHost) ==
		      cudaErrorInvalidValue);
	check("cudaMemset2D", cudaMemset2D(device, pitch, 7, 16, 4) == cudaSuccess);
	check("cudaMemcpy bad direction", cudaMemcpy(back, device, 4, (enum cudaMemcpyKind)9) ==
						  cudaErrorInvalidMemcpyDirection);
	check("cudaGetLastError after it", cudaGetLastError() == cudaErrorInvalidMemcpyDirection);
	check("cudaFree(pitched)", cudaFree(device) == cudaSuccess);
}

static void pointers(void)
{
	void *device, *managed, *pinned;
	static char registered[8192];
	struct cudaPointerAttributes a;
	cudaMalloc(&device, 4096);
	cudaMallocManaged(&managed, 4096, cudaMemAttachGlobal);
	cudaMallocHost(&pinned, 4096);
	check("attributes of device memory",
	      cudaPointerGetAttributes(&a, (char *)device + 8) == 0 &&
		      a.type == cudaMemoryTypeDevice && a.device == 0);
	check("attributes of managed memory",
	      cudaPointerGetAttributes(&a, managed) == 0 && a.type == cudaMemoryTypeManaged);
	check("attributes of pinned memory",
	      cudaPointerGetAttributes(&a, pinned) == 0 && a.type == cudaMemoryTypeHost);
	check("attributes of plain host memory",
	      cudaPointerGetAttributes(&a, &a) == 0 && a.type == cudaMemoryTypeUnregistered);
	check("cudaHostRegister", cudaHostRegister(registered, sizeof(registered), 0) == 0);
	check("cudaHostRegister twice", cudaHostRegister(registered, sizeof(registered), 0) ==
						cudaErrorHostMemoryAlreadyRegistered);
	void *mapped = NULL;
	check("cudaHostGetDevicePointer",
	      cudaHostGetDevicePointer(&mapped, registered, 0) == 0 && mapped == registered);
	check("cudaHostUnregister", cudaHostUnregister(registered) == 0);
	check("cudaHostUnregister twice",
	      cudaHostUnregister(registered) == cudaErrorHostMemoryNotRegistered);
	struct cudaMemLocation location = {cudaMemLocationTypeDevice, 0};
	check("cudaMemPrefetchAsync", cudaMemPrefetchAsync(managed, 4096, location, 0, 0) == 0);
	check("cudaMemAdvise",
	      cudaMemAdvise(managed, 4096, cudaMemAdviseSetReadMostly, location) == 0);
	cudaFree(device);
	cudaFree(managed);
	cudaFreeHost(pinned);
}

static void streams_and_events(void)
{
	cudaStream_t stream;
	cudaEvent_t start = NULL, stop = NULL;
	int least, greatest, calls = 0;
	float ms = -1;
	check("cudaDeviceGetStreamPriorityRange",
	      cudaDeviceGetStreamPriorityRange(&least, &greatest) == 0 && greatest <= least);
	check("cudaStreamCreateWithPriority",
	      cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest) == 0);
	check("cudaEventCreate", cudaEventCreate(&start) == 0 && cudaEventCreate(&stop) == 0);
	check("cudaEventRecord", cudaEventRecord(start, stream) == 0);
	check("cudaLaunchHostFunc", cudaLaunchHostFunc(stream, host_callback, &calls) == 0);
	check("cudaEventRecordWithFlags", cudaEventRecordWithFlags(stop, stream, 0) == 0);
	check("cudaStreamWaitEvent", cudaStreamWaitEvent(stream, stop, 0) == 0);
	check("cudaStreamSynchronize", cudaStreamSynchronize(stream) == 0 && calls == 1);
	check("cudaEventElapsedTime", cudaEventElapsedTime(&ms, start, stop) == 0 && ms >= 0);
	check("cudaStreamQuery", cudaStreamQuery(stream) == cudaSuccess);
	check("cudaEventDestroy", cudaEventDestroy(start) == 0 && cudaEventDestroy(stop) == 0);
	check("cudaStreamDestroy", cudaStreamDestroy(stream) == 0);
}

/* A __device__ variable as nvcc registers it: its host shadow and size. */
static int symbol_storage[4];
void **__cudaRegisterFatBinary(void *fat_cubin);
void __cudaRegisterVar(void **handle, char *host_var, char *device_address, const char *device_name,
		       int ext, size_t size, int constant, int global);

static void register_symbol(void)
{
	static const struct {
		unsigned magic, version;
		const void *data, *unused;
	} wrapper = {0x466243b1, 1, NULL, NULL};
	void **handle = __cudaRegisterFatBinary((void *)&wrapper);
	__cudaRegisterVar(handle, (char *)symbol_storage, (char *)symbol_storage, "symbol_storage",
			  0, sizeof(symbol_storage), 0, 0);
}

static void device_queries(void)
{
	struct cudaDeviceProp prop;
	size_t limit = 0, free_bytes, total;
	int can = -1, value = 0;
	check("cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, 0) == 0 &&
						 prop.totalGlobalMem == 80ull << 30 &&
						 prop.major == 9);
	check("cudaGetDeviceProperties bad device",
	      cudaGetDeviceProperties(&prop, 7) == cudaErrorInvalidDevice);
	check("cudaDeviceGetAttribute",
	      cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 0) == 0 && value == 32);
	check("cudaDeviceCanAccessPeer self", cudaDeviceCanAccessPeer(&can, 0, 0) == 0 && can == 0);
	check("cudaDeviceSetLimit", cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 24) == 0);
	check("cudaDeviceGetLimit",
	      cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize) == 0 && limit == 1 << 24);
	check("cudaMemGetInfo: context is not free", cudaMemGetInfo(&free_bytes, &total) == 0 &&
							     total == 80ull << 30 &&
							     free_bytes == total - (512ull << 20));
	int values[4] = {1, 2, 3, 4}, back[4] = {0};
	void *address = NULL;
	size_t symbol_size = 0;
	check("cudaMemcpyToSymbol of no variable",
	      cudaMemcpyToSymbol(values, back, sizeof(back), 0, cudaMemcpyHostToDevice) ==
		      cudaErrorInvalidSymbol);
	register_symbol();
	check("cudaMemcpyToSymbol", cudaMemcpyToSymbol(symbol_storage, values, sizeof(values), 0,
						       cudaMemcpyHostToDevice) == 0);
	check("cudaMemcpyFromSymbol", cudaMemcpyFromSymbol(back, symbol_storage, sizeof(back), 0,
							   cudaMemcpyDeviceToHost) == 0 &&
					      memcmp(values, back, sizeof(back)) == 0);
	check("cudaGetSymbolAddress", cudaGetSymbolAddress(&address, symbol_storage) == 0 &&
					      address == (void *)symbol_storage);
	check("cudaGetSymbolSize", cudaGetSymbolSize(&symbol_size, symbol_storage) == 0 &&
					   symbol_size == sizeof(symbol_storage));
	check("cudaMemcpyToSymbol past its end",
	      cudaMemcpyToSymbol(symbol_storage, values, sizeof(values), 4,
				 cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
	cudaGetLastError();
	check("cudaGetErrorString", strcmp(cudaGetErrorString(cudaErrorInvalidDevicePointer),
					   "invalid device pointer") == 0);
	check("cudaGetErrorName unknown",
	      strcmp(cudaGetErrorName((cudaError_t)12345), "unrecognized error code") == 0);
}

static unsigned long long pool_figure(cudaMemPool_t pool, enum cudaMemPoolAttr attribute)
{
	unsigned long long value = ~0ull;
	cudaMemPoolGetAttribute(pool, attribute, &value);
	return value;
}

static size_t free_bytes(void)
{
	size_t free_now = 0, total = 0;
	cudaMemGetInfo(&free_now, &total);
	return free_now;
}

/* A created pool reserves in 2 MiB units, keeps its release threshold
 * after frees, gives memory back when trimmed or destroyed, and serves
 * cudaMallocAsync once it is the device's current pool. */
static void pools(void)
{
	const size_t mib = 1 << 20;
	struct cudaMemPoolProps props = {.allocType = cudaMemAllocationTypePinned,
					 .location = {.type = cudaMemLocationTypeDevice, .id = 0}};
	cudaMemPool_t pool = NULL, current = NULL, fallback = NULL;
	check("cudaMemPoolCreate", cudaMemPoolCreate(&pool, &props) == cudaSuccess && pool);
	unsigned long long threshold = 8 * mib;
	check("cudaMemPoolSetAttribute threshold",
	      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) ==
		      cudaSuccess);
	check("cudaDeviceSetMemPool", cudaDeviceSetMemPool(0, pool) == cudaSuccess);
	check("cudaDeviceGetMemPool",
	      cudaDeviceGetMemPool(&current, 0) == cudaSuccess && current == pool);
	size_t before = free_bytes();
	void *a = NULL, *b = NULL;
	check("cudaMallocAsync from the current pool",
	      cudaMallocAsync(&a, 3 * mib, 0) == cudaSuccess &&
		      cudaMallocFromPoolAsync(&b, 1, pool, 0) == cudaSuccess);
	check("pool used 6 MiB", pool_figure(pool, cudaMemPoolAttrUsedMemCurrent) == 6 * mib);
	check("device charged 6 MiB", before - free_bytes() == 6 * mib);
	cudaFreeAsync(a, 0);
	check("pool keeps its threshold",
	      pool_figure(pool, cudaMemPoolAttrUsedMemCurrent) == 2 * mib &&
		      pool_figure(pool, cudaMemPoolAttrReservedMemCurrent) == 6 * mib &&
		      before - free_bytes() == 6 * mib);
	check("cudaMallocAsync reuses the reserve",
	      cudaMallocAsync(&a, 4 * mib, 0) == cudaSuccess &&
		      pool_figure(pool, cudaMemPoolAttrReservedMemCurrent) == 6 * mib &&
		      pool_figure(pool, cudaMemPoolAttrUsedMemHigh) == 6 * mib);
	cudaFreeAsync(a, 0);
	check("cudaMemPoolTrimTo",
	      cudaMemPoolTrimTo(pool, 0) == cudaSuccess &&
		      pool_figure(pool, cudaMemPoolAttrReservedMemCurrent) == 2 * mib &&
		      before - free_bytes() == 2 * mib);
	unsigned long long zero = 0, one = 1;
	check("high-water marks reset only to zero",
	      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero) == cudaSuccess &&
		      pool_figure(pool, cudaMemPoolAttrUsedMemHigh) == 0 &&
		      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &one) ==
			      cudaErrorInvalidValue);
	check("cudaMemPoolDestroy", cudaMemPoolDestroy(pool) == cudaSuccess);
	check("destroyed pool's allocation frees",
	      cudaFreeAsync(b, 0) == cudaSuccess && free_bytes() == before);
	check("current pool falls back to the default",
	      cudaDeviceGetMemPool(&current, 0) == cudaSuccess &&
		      cudaDeviceGetDefaultMemPool(&fallback, 0) == cudaSuccess &&
		      current == fallback);
	check("destroyed pool handle refused",
	      cudaMemPoolTrimTo(pool, 0) == cudaErrorInvalidValue &&
		      cudaMemPoolDestroy(fallback) == cudaErrorInvalidValue);
	cudaGetLastError();
}

/* The queries around arrays and streams that programs make in passing. */
static void queries(void)
{
	struct cudaChannelFormatDesc desc =
		cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
	check("cudaCreateChannelDesc",
	      desc.x == 32 && desc.y == 0 && desc.f == cudaChannelFormatKindFloat);
	/* As cuda_runtime_api.h says, the requirements are given only for an
	 * array made with cudaArrayDeferredMapping; any other is refused and
	 * the answer left as it was. A deferred one of 100 x 10 floats needs
	 * the simulated layout's 10 rows of 400 bytes padded to 512: 5120. */
	cudaArray_t array = NULL, deferred = NULL;
	cudaMipmappedArray_t levels = NULL, deferred_levels = NULL;
	struct cudaArrayMemoryRequirements needed = {.size = 7, .alignment = 9};
	check("array requirements refused",
	      cudaMallocArray(&array, &desc, 100, 10, 0) == cudaSuccess &&
		      cudaArrayGetMemoryRequirements(&needed, array, 0) == cudaErrorInvalidValue &&
		      cudaGetLastError() == cudaErrorInvalidValue && needed.size == 7 &&
		      needed.alignment == 9 && cudaFreeArray(array) == cudaSuccess);
	check("mipmapped requirements refused",
	      cudaMallocMipmappedArray(&levels, &desc, (struct cudaExtent){100, 10, 0}, 2, 0) ==
			      cudaSuccess &&
		      cudaMipmappedArrayGetMemoryRequirements(&needed, levels, 0) ==
			      cudaErrorInvalidValue &&
		      cudaGetLastError() == cudaErrorInvalidValue && needed.size == 7 &&
		      cudaFreeMipmappedArray(levels) == cudaSuccess);
	check("deferred array requirements",
	      cudaMallocArray(&deferred, &desc, 100, 10, cudaArrayDeferredMapping) == cudaSuccess &&
		      cudaArrayGetMemoryRequirements(&needed, deferred, 0) == cudaSuccess &&
		      needed.size == 512 * 10 && cudaFreeArray(deferred) == cudaSuccess);
	/* Two levels of 100 x 10 and 50 x 5 floats, rows of 400 and 200
	 * bytes padded to 512: 512 x 10 + 512 x 5 = 7680. */
	check("deferred mipmapped requirements",
	      cudaMallocMipmappedArray(&deferred_levels, &desc, (struct cudaExtent){100, 10, 0}, 2,
				       cudaArrayDeferredMapping) == cudaSuccess &&
		      cudaMipmappedArrayGetMemoryRequirements(&needed, deferred_levels, 0) ==
			      cudaSuccess &&
		      needed.size == 512 * 10 + 512 * 5 &&
		      cudaFreeMipmappedArray(deferred_levels) == cudaSuccess);
	enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
	check("cudaStreamIsCapturing", cudaStreamIsCapturing(0, &status) == cudaSuccess &&
					       status == cudaStreamCaptureStatusNone);
	check("cudaInitDevice", cudaInitDevice(0, 0, 0) == cudaSuccess &&
					cudaInitDevice(99, 0, 0) == cudaErrorInvalidDevice);
	cudaGetLastError();
}

int main(void)
{
	copies();
	pointers();
	streams_and_events();
	device_queries();
	pools();
	queries();
	return failures;
}
