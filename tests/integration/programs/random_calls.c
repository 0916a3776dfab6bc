/* A seeded random run of the runtime's and the driver's allocation calls
 * on two devices and the host: plain, pitched (2D and 3D), managed and
 * stream-ordered memory (default and created pools), arrays, physical
 * memory handles (mapped or not, released and unmapped in either order),
 * pinned host memory, frees through either API, and allocations that
 * fail, inside nested NVTX ranges whose innermost names the tag, and
 * cudaDeviceReset, which frees what the device's context made. The
 * program keeps its own account of what it did and prints what the report
 * must say, one figure a line: "expect PATH VALUE", "expect_kind OWNER
 * KIND FIELD VALUE" or "expect_tag OWNER TAG FIELD VALUE".
 * Usage: random_calls SEED [CALLS]. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DEVICES  2
#define OWNERS   (DEVICES + 1) /* the last is the host */
#define MAX_LIVE 512
#define MiB      (1024ull * 1024ull)

enum kind { DEVICE, ASYNC, MANAGED, ARRAY, VMM, PINNED, KINDS };
static const char *const kind_names[KINDS] = {"device", "async", "managed",
					      "array",  "vmm",   "pinned_host"};

struct figures {
	uint64_t live, peak, at_peak, allocations, frees, bytes_allocated;
};

/* Untagged, then one per NVTX range name. */
#define TAGS 4
static const char *const tag_names[TAGS] = {"untagged", "load", "prefill", "decode"};

struct owner {
	struct figures total, kinds[KINDS], tags[TAGS];
	uint64_t live_count, failed, peak_event;
};

struct allocation {
	void *pointer; /* the array or the handle for those kinds */
	uint64_t bytes;
	int owner;
	enum kind kind;
	unsigned tag;
	int context_device; /* whose primary context made it; -1: none's */
	CUdeviceptr mapped; /* a handle's mapping, 0 when none */
};

static struct owner owners[OWNERS];
static cudaMemPool_t pools[DEVICES];
static struct allocation live[MAX_LIVE];
static unsigned live_count;
static uint64_t events, rng;
static unsigned ranges[3], range_depth; /* the open NVTX ranges' tags */

static unsigned below(unsigned bound)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % bound);
}

static void check(int failed, const char *what)
{
	if (failed) {
		fprintf(stderr, "random_calls: %s failed\n", what);
		exit(1);
	}
}

static int current_device(void)
{
	int device;
	check(cudaGetDevice(&device) != cudaSuccess, "cudaGetDevice");
	return device;
}

static void count_in(struct figures *f, uint64_t bytes)
{
	f->live += bytes;
	f->allocations++;
	f->bytes_allocated += bytes;
	if (f->live > f->peak)
		f->peak = f->live;
}

static void count_out(struct figures *f, uint64_t bytes)
{
	f->live -= bytes;
	f->frees++;
}

static void allocated(void *pointer, uint64_t bytes, int owner, enum kind kind)
{
	struct owner *o = &owners[owner];
	unsigned tag = range_depth ? ranges[range_depth - 1] : 0;
	events++;
	/* Stream-ordered memory and physical handles belong to no context. */
	int context_device = kind == ASYNC || kind == VMM ? -1
			     : kind == PINNED             ? current_device()
							  : owner;
	live[live_count++] =
		(struct allocation){pointer, bytes, owner, kind, tag, context_device, 0};
	o->live_count++;
	count_in(&o->total, bytes);
	count_in(&o->kinds[kind], bytes);
	count_in(&o->tags[tag], bytes);
	if (o->total.live > o->total.at_peak) { /* a new peak of the owner's */
		o->total.at_peak = o->total.live;
		o->peak_event = events;
		for (int k = 0; k < KINDS; k++)
			o->kinds[k].at_peak = o->kinds[k].live;
		for (int t = 0; t < TAGS; t++)
			o->tags[t].at_peak = o->tags[t].live;
	}
}

static void freed(unsigned index)
{
	struct allocation *a = &live[index];
	struct owner *o = &owners[a->owner];
	events++;
	count_out(&o->total, a->bytes);
	count_out(&o->kinds[a->kind], a->bytes);
	count_out(&o->tags[a->tag], a->bytes);
	o->live_count--;
	*a = live[--live_count];
}

static uint64_t random_size(void)
{
	return below(4) ? 1 + below(64 * 1024) : (1 + below(64)) * MiB + below(4096);
}

static void allocate_device(void)
{
	int device = current_device();
	void *pointer;
	uint64_t bytes = random_size();
	switch (below(7)) {
	case 0: {
		size_t pitch, width = 1 + below(5000), height = 1 + below(300);
		check(cudaMallocPitch(&pointer, &pitch, width, height) != cudaSuccess,
		      "cudaMallocPitch");
		bytes = (uint64_t)pitch * height;
		break;
	}
	case 1: {
		CUdeviceptr address;
		size_t pitch, width = 1 + below(5000), height = 1 + below(300);
		check(cuMemAllocPitch(&address, &pitch, width, height, 4) != CUDA_SUCCESS,
		      "cuMemAllocPitch");
		pointer = (void *)(uintptr_t)address;
		bytes = (uint64_t)pitch * height;
		break;
	}
	case 2: {
		CUdeviceptr address;
		check(cuMemAlloc(&address, bytes) != CUDA_SUCCESS, "cuMemAlloc");
		pointer = (void *)(uintptr_t)address;
		break;
	}
	default: check(cudaMalloc(&pointer, bytes) != cudaSuccess, "cudaMalloc");
	}
	allocated(pointer, bytes, device, DEVICE);
}

static void allocate_3d(void)
{
	int device = current_device();
	struct cudaPitchedPtr pitched;
	struct cudaExtent extent = {1 + below(3000), 1 + below(100), 1 + below(20)};
	check(cudaMalloc3D(&pitched, extent) != cudaSuccess, "cudaMalloc3D");
	allocated(pitched.ptr, (uint64_t)pitched.pitch * extent.height * extent.depth, device,
		  DEVICE);
}

static void allocate_array(void)
{
	int device = current_device();
	cudaArray_t array;
	struct cudaChannelFormatDesc format =
		cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
	/* A real driver gives no size for an array that is not deferred-mapping
	 * (cudaArrayGetMemoryRequirements refuses it): vramtrace counts its
	 * elements, 4 bytes a float, width x height (a 1D array's height 0
	 * counting as one row). */
	size_t width = 1 + below(2000), height = below(4) ? 1 + below(500) : 0;
	check(cudaMallocArray(&array, &format, width, height, 0) != cudaSuccess, "cudaMallocArray");
	allocated(array, 4 * (uint64_t)width * (height ? height : 1), device, ARRAY);
}

/* A physical memory handle, mapped half the time. */
static void allocate_vmm(void)
{
	int device = current_device();
	CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
				    .location = {CU_MEM_LOCATION_TYPE_DEVICE, device}};
	size_t granularity;
	check(cuMemGetAllocationGranularity(&granularity, &prop,
					    CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS,
	      "cuMemGetAllocationGranularity");
	uint64_t bytes = (uint64_t)granularity * (1 + below(16));
	CUmemGenericAllocationHandle handle;
	check(cuMemCreate(&handle, bytes, &prop, 0) != CUDA_SUCCESS, "cuMemCreate");
	allocated((void *)(uintptr_t)handle, bytes, device, VMM);
	if (below(2)) {
		CUdeviceptr base;
		check(cuMemAddressReserve(&base, bytes, 0, 0, 0) != CUDA_SUCCESS ||
			      cuMemMap(base, bytes, 0, handle, 0) != CUDA_SUCCESS,
		      "cuMemMap");
		live[live_count - 1].mapped = base;
	}
}

static void allocate_from_pool(void)
{
	int device = current_device();
	if (!pools[device]) {
		struct cudaMemPoolProps props = {.allocType = cudaMemAllocationTypePinned,
						 .location = {cudaMemLocationTypeDevice, device}};
		check(cudaMemPoolCreate(&pools[device], &props) != cudaSuccess,
		      "cudaMemPoolCreate");
	}
	void *pointer;
	uint64_t bytes = random_size();
	check(cudaMallocFromPoolAsync(&pointer, bytes, pools[device], 0) != cudaSuccess,
	      "cudaMallocFromPoolAsync");
	allocated(pointer, bytes, device, ASYNC);
}

static void allocate_managed(void)
{
	int device = current_device();
	void *pointer;
	uint64_t bytes = random_size();
	if (below(2)) {
		check(cudaMallocManaged(&pointer, bytes, cudaMemAttachGlobal) != cudaSuccess,
		      "cudaMallocManaged");
	} else {
		CUdeviceptr address;
		check(cuMemAllocManaged(&address, bytes, CU_MEM_ATTACH_GLOBAL) != CUDA_SUCCESS,
		      "cuMemAllocManaged");
		pointer = (void *)(uintptr_t)address;
	}
	allocated(pointer, bytes, device, MANAGED);
}

static void allocate_async(void)
{
	int device = current_device();
	void *pointer;
	uint64_t bytes = random_size();
	if (below(2)) {
		check(cudaMallocAsync(&pointer, bytes, 0) != cudaSuccess, "cudaMallocAsync");
	} else {
		CUdeviceptr address;
		check(cuMemAllocAsync(&address, bytes, NULL) != CUDA_SUCCESS, "cuMemAllocAsync");
		pointer = (void *)(uintptr_t)address;
	}
	allocated(pointer, bytes, device, ASYNC);
}

static void allocate_pinned(void)
{
	void *pointer;
	uint64_t bytes = 1 + below(256 * 1024);
	switch (below(3)) {
	case 0: check(cudaMallocHost(&pointer, bytes) != cudaSuccess, "cudaMallocHost"); break;
	case 1:
		check(cudaHostAlloc(&pointer, bytes, cudaHostAllocPortable) != cudaSuccess,
		      "cudaHostAlloc");
		break;
	default: check(cuMemAllocHost(&pointer, bytes) != CUDA_SUCCESS, "cuMemAllocHost");
	}
	allocated(pointer, bytes, DEVICES, PINNED);
}

static void free_one(void)
{
	unsigned index = below(live_count);
	const struct allocation *a = &live[index];
	CUdeviceptr address = (CUdeviceptr)(uintptr_t)a->pointer;
	int failed;
	if (a->kind == VMM) {
		CUmemGenericAllocationHandle handle =
			(CUmemGenericAllocationHandle)(uintptr_t)a->pointer;
		if (!a->mapped) {
			failed = cuMemRelease(handle) != CUDA_SUCCESS;
		} else if (below(2)) { /* released while mapped: it lives until unmapped */
			failed = cuMemRelease(handle) != CUDA_SUCCESS ||
				 cuMemUnmap(a->mapped, a->bytes) != CUDA_SUCCESS;
		} else {
			failed = cuMemUnmap(a->mapped, a->bytes) != CUDA_SUCCESS ||
				 cuMemRelease(handle) != CUDA_SUCCESS;
		}
		if (a->mapped)
			failed |= cuMemAddressFree(a->mapped, a->bytes) != CUDA_SUCCESS;
	} else if (a->kind == ARRAY)
		failed = cudaFreeArray(a->pointer) != cudaSuccess;
	else if (a->kind == PINNED)
		failed = below(2) ? cudaFreeHost(a->pointer) != cudaSuccess
				  : cuMemFreeHost(a->pointer) != CUDA_SUCCESS;
	else if (a->kind == ASYNC && below(2))
		failed = below(2) ? cudaFreeAsync(a->pointer, 0) != cudaSuccess
				  : cuMemFreeAsync(address, NULL) != CUDA_SUCCESS;
	else
		failed = below(2) ? cudaFree(a->pointer) != cudaSuccess
				  : cuMemFree(address) != CUDA_SUCCESS;
	check(failed, "free");
	freed(index);
}

static void fail_one(void)
{
	int device = current_device();
	void *pointer;
	check(cudaMalloc(&pointer, 1ull << 50) != cudaErrorMemoryAllocation,
	      "an impossible cudaMalloc");
	cudaGetLastError();
	events++;
	owners[device].failed++;
}

static void push_or_pop(void)
{
	if (range_depth == 3 || (range_depth && below(2))) {
		nvtxRangePop();
		range_depth--;
	} else {
		ranges[range_depth] = 1 + below(TAGS - 1);
		nvtxRangePushA(tag_names[ranges[range_depth++]]);
	}
}

/* The current device's primary context ends its allocations. */
static void reset_one(void)
{
	int device = current_device();
	check(cudaDeviceReset() != cudaSuccess, "cudaDeviceReset");
	for (unsigned i = live_count; i-- > 0;)
		if (live[i].context_device == device)
			freed(i);
}

static void one_call(void)
{
	unsigned roll = below(100);
	if (roll < 3)
		push_or_pop();
	else if (roll < 5)
		check(cudaSetDevice((int)below(DEVICES)) != cudaSuccess, "cudaSetDevice");
	else if (roll < 7)
		fail_one();
	else if (roll < 8)
		reset_one();
	else if (live_count && (roll < 50 || live_count == MAX_LIVE))
		free_one();
	else if (roll < 62)
		allocate_device();
	else if (roll < 65)
		allocate_3d();
	else if (roll < 68)
		allocate_array();
	else if (roll < 72)
		allocate_vmm();
	else if (roll < 79)
		allocate_managed();
	else if (roll < 84)
		allocate_async();
	else if (roll < 89)
		allocate_from_pool();
	else
		allocate_pinned();
}

static void print_figures(const char *what, const char *path, const char *name,
			  const struct figures *f)
{
	const char *fields[] = {"peak_bytes",  "at_peak_bytes", "live_at_exit_bytes",
				"allocations", "frees",         "bytes_allocated"};
	uint64_t values[] = {f->peak,        f->at_peak, f->live,
			     f->allocations, f->frees,   f->bytes_allocated};
	for (int i = 0; i < 6; i++)
		printf("%s %s %s %s %llu\n", what, path, name, fields[i],
		       (unsigned long long)values[i]);
}

static void print_owner(const char *path, const struct owner *o)
{
	printf("expect %s/peak/bytes %llu\n", path, (unsigned long long)o->total.peak);
	printf("expect %s/peak/event %llu\n", path, (unsigned long long)o->peak_event);
	printf("expect %s/live_at_exit_bytes %llu\n", path, (unsigned long long)o->total.live);
	printf("expect %s/live_at_exit_allocations %llu\n", path,
	       (unsigned long long)o->live_count);
	printf("expect %s/allocations %llu\n", path, (unsigned long long)o->total.allocations);
	printf("expect %s/frees %llu\n", path, (unsigned long long)o->total.frees);
	printf("expect %s/failed_allocations %llu\n", path, (unsigned long long)o->failed);
	printf("expect %s/bytes_allocated %llu\n", path,
	       (unsigned long long)o->total.bytes_allocated);
	for (int k = 0; k < KINDS; k++)
		if (o->kinds[k].allocations)
			print_figures("expect_kind", path, kind_names[k], &o->kinds[k]);
	for (int t = 0; t < TAGS; t++)
		if (o->tags[t].allocations)
			print_figures("expect_tag", path, tag_names[t], &o->tags[t]);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: random_calls SEED [CALLS]\n");
		return 2;
	}
	rng = strtoull(argv[1], NULL, 0) | 1;
	unsigned calls = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 3000;
	check(cudaFree(NULL) != cudaSuccess, "cudaFree(NULL)");
	for (unsigned i = 0; i < calls; i++)
		one_call();
	check(cudaDeviceSynchronize() != cudaSuccess, "cudaDeviceSynchronize");
	for (int d = 0; d < DEVICES; d++) {
		char path[32];
		snprintf(path, sizeof(path), "devices/%d", d);
		print_owner(path, &owners[d]);
	}
	print_owner("host", &owners[DEVICES]);
	printf("expect tracer/events %llu\n", (unsigned long long)events);
	printf("expect tracer/unknown_frees 0\n");
	return 0;
}
