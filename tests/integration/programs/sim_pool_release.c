/* When a stream-ordered pool gives memory back to the device, as the
 * headers document it (cuda.h CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
 * driver_types.h cudaMemPoolAttrReleaseThreshold): a free returns the
 * memory to its pool, which keeps it reserved, not free on the device,
 * until the next stream, event or context synchronize; that synchronize
 * returns what the pool holds above its release threshold. A query is no
 * synchronize; cudaFree of pool memory does not synchronize (cuda.h
 * cuMemFree); cudaMemPoolTrimTo and cudaMemPoolDestroy release at once.
 * The simulated device reserves in 2 MiB units. Each check prints its
 * name and whether it held. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>

#define MiB (1ull << 20)

static int failures;

static void check(const char *what, int ok)
{
	printf("%-60s %s\n", what, ok ? "ok" : "FAILED");
	failures += !ok;
}

static unsigned long long figure(cudaMemPool_t pool, enum cudaMemPoolAttr attribute)
{
	unsigned long long value = ~0ull;
	cudaMemPoolGetAttribute(pool, attribute, &value);
	return value;
}

static size_t device_free(void)
{
	size_t free_bytes = 0, total = 0;
	cudaMemGetInfo(&free_bytes, &total);
	return free_bytes;
}

static int reserved_is(cudaMemPool_t pool, unsigned long long bytes)
{
	return figure(pool, cudaMemPoolAttrReservedMemCurrent) == bytes;
}

static void set_threshold(cudaMemPool_t pool, unsigned long long bytes)
{
	cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &bytes);
}

/* The default pool, threshold 0: held after the free, released by the
 * stream's synchronize, not by a query. */
static void stream_synchronize(cudaMemPool_t pool, cudaStream_t stream, size_t before)
{
	void *p = NULL;
	check("cudaMallocAsync 8 MiB", cudaMallocAsync(&p, 8 * MiB, stream) == cudaSuccess);
	check("  reserved and used 8 MiB",
	      reserved_is(pool, 8 * MiB) && figure(pool, cudaMemPoolAttrUsedMemCurrent) == 8 * MiB);
	check("  not free on the device", device_free() == before - 8 * MiB);
	check("cudaFreeAsync", cudaFreeAsync(p, stream) == cudaSuccess);
	check("  used 0, used high 8 MiB",
	      figure(pool, cudaMemPoolAttrUsedMemCurrent) == 0 &&
		      figure(pool, cudaMemPoolAttrUsedMemHigh) == 8 * MiB);
	check("  still reserved: 8 MiB", reserved_is(pool, 8 * MiB));
	check("  still not free on the device", device_free() == before - 8 * MiB);
	check("cudaStreamQuery is no synchronize", cudaStreamQuery(stream) == cudaSuccess &&
							   reserved_is(pool, 8 * MiB) &&
							   device_free() == before - 8 * MiB);
	check("cudaStreamSynchronize", cudaStreamSynchronize(stream) == cudaSuccess);
	check("  reserved 0, reserved high 8 MiB",
	      reserved_is(pool, 0) && figure(pool, cudaMemPoolAttrReservedMemHigh) == 8 * MiB);
	check("  free on the device again", device_free() == before);
}

/* A threshold above what was freed keeps it all through a synchronize;
 * lowered to 0, the next synchronize (here the device's) releases it. */
static void threshold_kept(cudaMemPool_t pool, size_t before)
{
	void *p = NULL;
	set_threshold(pool, 16 * MiB);
	cudaMallocAsync(&p, 8 * MiB, 0);
	cudaFreeAsync(p, 0);
	check("threshold 16 MiB: cudaStreamSynchronize keeps 8 MiB",
	      cudaStreamSynchronize(0) == cudaSuccess && reserved_is(pool, 8 * MiB) &&
		      device_free() == before - 8 * MiB);
	check("cudaMallocAsync reuses the reserve",
	      cudaMallocAsync(&p, 6 * MiB, 0) == cudaSuccess && reserved_is(pool, 8 * MiB) &&
		      device_free() == before - 8 * MiB);
	cudaFreeAsync(p, 0);
	set_threshold(pool, 0);
	check("threshold lowered to 0: still held until a synchronize",
	      reserved_is(pool, 8 * MiB) && device_free() == before - 8 * MiB);
	check("cudaDeviceSynchronize releases it", cudaDeviceSynchronize() == cudaSuccess &&
							   reserved_is(pool, 0) &&
							   device_free() == before);
}

/* An event's synchronize; cudaFree of pool memory frees into the pool
 * without synchronizing. */
static void event_synchronize(cudaMemPool_t pool, cudaStream_t stream, size_t before)
{
	void *p = NULL;
	cudaEvent_t event = NULL;
	cudaEventCreate(&event);
	cudaMallocAsync(&p, 8 * MiB, stream);
	check("cudaFree of pool memory", cudaFree(p) == cudaSuccess);
	check("  held: 8 MiB", reserved_is(pool, 8 * MiB) && device_free() == before - 8 * MiB);
	cudaEventRecord(event, stream);
	check("cudaEventQuery is no synchronize",
	      cudaEventQuery(event) == cudaSuccess && reserved_is(pool, 8 * MiB));
	check("cudaEventSynchronize releases it", cudaEventSynchronize(event) == cudaSuccess &&
							  reserved_is(pool, 0) &&
							  device_free() == before);
	cudaEventDestroy(event);
}

/* Trimming and destroying need no synchronize. */
static void trim_and_destroy(size_t before)
{
	struct cudaMemPoolProps props = {.allocType = cudaMemAllocationTypePinned,
					 .location = {.type = cudaMemLocationTypeDevice, .id = 0}};
	cudaMemPool_t pool = NULL;
	void *p = NULL, *q = NULL;
	cudaMemPoolCreate(&pool, &props);
	cudaMallocFromPoolAsync(&p, 8 * MiB, pool, 0);
	cudaMallocFromPoolAsync(&q, 2 * MiB, pool, 0);
	cudaFreeAsync(p, 0);
	check("a created pool holds its freed 8 MiB",
	      reserved_is(pool, 10 * MiB) && device_free() == before - 10 * MiB);
	check("cudaMemPoolTrimTo(0) releases down to what is in use",
	      cudaMemPoolTrimTo(pool, 0) == cudaSuccess && reserved_is(pool, 2 * MiB) &&
		      device_free() == before - 2 * MiB);
	cudaMallocFromPoolAsync(&p, 8 * MiB, pool, 0);
	cudaFreeAsync(p, 0);
	check("  holding 8 MiB freed again",
	      reserved_is(pool, 10 * MiB) && device_free() == before - 10 * MiB);
	check("cudaMemPoolDestroy releases what is not in use",
	      cudaMemPoolDestroy(pool) == cudaSuccess && device_free() == before - 2 * MiB);
	check("  and its last allocation at its free",
	      cudaFreeAsync(q, 0) == cudaSuccess && device_free() == before);
}

/* The driver's forms: cuMemFreeAsync, then cuStreamSynchronize and
 * cuCtxSynchronize. */
static void driver(cudaMemPool_t pool, size_t before)
{
	CUdeviceptr p = 0;
	CUstream stream = NULL;
	cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
	cuMemAllocAsync(&p, 8 * MiB, stream);
	cuMemFreeAsync(p, stream);
	check("cuMemFreeAsync: held",
	      reserved_is(pool, 8 * MiB) && device_free() == before - 8 * MiB);
	check("cuStreamSynchronize releases it", cuStreamSynchronize(stream) == CUDA_SUCCESS &&
							 reserved_is(pool, 0) &&
							 device_free() == before);
	cuMemAllocAsync(&p, 8 * MiB, stream);
	cuMemFreeAsync(p, stream);
	check("cuCtxSynchronize releases it", cuCtxSynchronize() == CUDA_SUCCESS &&
						      reserved_is(pool, 0) &&
						      device_free() == before);
	cuStreamDestroy(stream);
}

int main(void)
{
	cudaMemPool_t pool = NULL;
	cudaStream_t stream = NULL;
	if (cudaDeviceGetDefaultMemPool(&pool, 0) != cudaSuccess ||
	    cudaStreamCreate(&stream) != cudaSuccess)
		return 1;
	size_t before = device_free();
	stream_synchronize(pool, stream, before);
	threshold_kept(pool, before);
	event_synchronize(pool, stream, before);
	trim_and_destroy(before);
	driver(pool, before);
	cudaStreamDestroy(stream);
	printf("%d failed\n", failures);
	return failures != 0;
}
