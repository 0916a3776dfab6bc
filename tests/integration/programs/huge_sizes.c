/* Sizes no GPU has, through every allocation entry point: each fails with
 * out of memory, as the real driver's do, and nothing is allocated. Prints
 * one line per refusal, then "huge_sizes: N refused". */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>

static int refused, wrong;

static void expect(const char *what, int got, int want)
{
	if (got == want) {
		refused++;
		printf("refused %s\n", what);
	} else {
		wrong++;
		printf("WRONG %s: %d, not %d\n", what, got, want);
	}
}

#define RUNTIME(what, call) expect(what, (int)(call), (int)cudaErrorMemoryAllocation)
#define DRIVER(what, call)  expect(what, (int)(call), (int)CUDA_ERROR_OUT_OF_MEMORY)

static struct cudaExtent extent(size_t width, size_t height, size_t depth)
{
	return (struct cudaExtent){width, height, depth};
}

static void runtime_entry_points(void)
{
	void *p = NULL;
	size_t pitch;
	RUNTIME("cudaMalloc(SIZE_MAX)", cudaMalloc(&p, SIZE_MAX));
	RUNTIME("cudaMalloc(-4)", cudaMalloc(&p, (size_t)-4));
	RUNTIME("cudaMalloc(2^62)", cudaMalloc(&p, (size_t)1 << 62));
	RUNTIME("cudaMalloc(81 GiB)", cudaMalloc(&p, (size_t)81 << 30));
	RUNTIME("cudaMallocPitch(SIZE_MAX wide)", cudaMallocPitch(&p, &pitch, SIZE_MAX, 1));
	RUNTIME("cudaMallocPitch(2^32 x 2^32)",
		cudaMallocPitch(&p, &pitch, (size_t)1 << 32, (size_t)1 << 32));
	struct cudaPitchedPtr pitched;
	RUNTIME("cudaMalloc3D(2^62 x 4 x 4)",
		cudaMalloc3D(&pitched, extent((size_t)1 << 62, 4, 4)));
	RUNTIME("cudaMallocManaged(SIZE_MAX)",
		cudaMallocManaged(&p, SIZE_MAX, cudaMemAttachGlobal));
	RUNTIME("cudaMallocHost(SIZE_MAX)", cudaMallocHost(&p, SIZE_MAX));
	RUNTIME("cudaHostAlloc(-4)", cudaHostAlloc(&p, (size_t)-4, cudaHostAllocDefault));
	RUNTIME("cudaMallocAsync(SIZE_MAX)", cudaMallocAsync(&p, SIZE_MAX, 0));
	cudaMemPool_t pool;
	cudaDeviceGetDefaultMemPool(&pool, 0);
	RUNTIME("cudaMallocFromPoolAsync(-4)", cudaMallocFromPoolAsync(&p, (size_t)-4, pool, 0));
	/* Past any array's limits: refused, as too big or as invalid. */
	cudaArray_t array;
	struct cudaChannelFormatDesc channel =
		cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
	cudaError_t error = cudaMalloc3DArray(&array, &channel,
					      extent((size_t)1 << 40, (size_t)1 << 20, 1024), 0);
	expect("cudaMalloc3DArray(2^40 x 2^20 x 1024)", error != cudaSuccess, 1);
}

static void driver_entry_points(void)
{
	CUdeviceptr d;
	void *p;
	size_t pitch;
	DRIVER("cuMemAlloc(SIZE_MAX)", cuMemAlloc(&d, SIZE_MAX));
	DRIVER("cuMemAllocPitch(-4 wide)", cuMemAllocPitch(&d, &pitch, (size_t)-4, 2, 4));
	DRIVER("cuMemAllocManaged(-4)", cuMemAllocManaged(&d, (size_t)-4, CU_MEM_ATTACH_GLOBAL));
	DRIVER("cuMemAllocHost(SIZE_MAX)", cuMemAllocHost(&p, SIZE_MAX));
	DRIVER("cuMemHostAlloc(2^62)", cuMemHostAlloc(&p, (size_t)1 << 62, 0));
	DRIVER("cuMemAllocAsync(SIZE_MAX)", cuMemAllocAsync(&d, SIZE_MAX, 0));
	CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
				    .location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0}};
	size_t granularity = 0;
	cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	CUmemGenericAllocationHandle handle;
	DRIVER("cuMemCreate(2^62)",
	       cuMemCreate(&handle, ((size_t)1 << 62) / granularity * granularity, &prop, 0));
}

int main(void)
{
	void *none;
	if (cudaFree(NULL) != cudaSuccess || cudaMalloc(&none, 0) != cudaSuccess)
		return 1;
	runtime_entry_points();
	driver_entry_points();
	size_t free_bytes = 0, total = 0;
	cudaMemGetInfo(&free_bytes, &total);
	printf("huge_sizes: %d refused, %d wrong, %zu of %zu bytes free\n", refused, wrong,
	       free_bytes, total);
	return wrong != 0;
}
