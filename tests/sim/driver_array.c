/* Stand-in driver: CUDA arrays and mipmapped arrays. An array's layout is
 * opaque on a real device; the simulated one pads each row to 512 bytes
 * and stacks the rows, layers and mipmap levels (each level half the size
 * of the one above, never below 1, but for a layered array's layers and a
 * cubemap's faces). The device is charged that size rounded to its
 * granularity, except for a sparse array or one whose memory is mapped
 * later (CUDA_ARRAY3D_SPARSE, CUDA_ARRAY3D_DEFERRED_MAPPING), which holds
 * no memory of its own. As
 * cuda.h says, cuArrayGetMemoryRequirements and
 * cuMipmappedArrayGetMemoryRequirements report the size only for a
 * deferred-mapping array, and refuse any other with
 * CUDA_ERROR_INVALID_VALUE. Only the plain, normalized and block-compressed
 * formats are simulated (a copy into or out of a block-compressed one is
 * refused); the video formats are refused. */
#include "sim.h"

#define SIM_ARRAY_ROW_ALIGNMENT 512

struct sim_array {
	int device;
	bool mipmapped;
	uint64_t bytes, charged;
	CUDA_ARRAY3D_DESCRIPTOR desc;
	struct sim_context *context; /* made in, and ended with */
	struct sim_array *prev, *next;
};

/* The live arrays, so that a context's end finds its own. */
static struct sim_array *arrays;

/* Called with sim_lock held. */
static void link_locked(struct sim_array *array)
{
	array->next = arrays;
	if (arrays)
		arrays->prev = array;
	arrays = array;
}

/* Called with sim_lock held: out of the list, its charge given back. */
static void unlink_locked(struct sim_array *array)
{
	if (array->prev)
		array->prev->next = array->next;
	else
		arrays = array->next;
	if (array->next)
		array->next->prev = array->prev;
	sim_devices[array->device].charged -= array->charged;
}

/* Called with sim_lock held: the live array behind a handle, or NULL for
 * one destroyed or never made (a device pointer, say), which a real
 * driver refuses rather than follows. */
static struct sim_array *live_locked(const void *handle, bool mipmapped)
{
	struct sim_array *array = arrays;
	while (array && array != handle)
		array = array->next;
	return array && array->mipmapped == mipmapped ? array : NULL;
}

static bool live(const void *handle, bool mipmapped)
{
	pthread_mutex_lock(&sim_lock);
	bool found = live_locked(handle, mipmapped);
	pthread_mutex_unlock(&sim_lock);
	return found;
}

void sim_arrays_context_ended(const struct sim_context *context)
{
	pthread_mutex_lock(&sim_lock);
	for (struct sim_array *array = arrays, *next; array; array = next) {
		next = array->next;
		if (array->context == context) {
			unlink_locked(array);
			free(array);
		}
	}
	pthread_mutex_unlock(&sim_lock);
}

unsigned sim_format_bytes(CUarray_format format)
{
	switch (format) {
	case CU_AD_FORMAT_UNSIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT8:
	case CU_AD_FORMAT_UNORM_INT8X1:
	case CU_AD_FORMAT_UNORM_INT8X2:
	case CU_AD_FORMAT_UNORM_INT8X4:
	case CU_AD_FORMAT_SNORM_INT8X1:
	case CU_AD_FORMAT_SNORM_INT8X2:
	case CU_AD_FORMAT_SNORM_INT8X4: return 1;
	case CU_AD_FORMAT_UNSIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_HALF:
	case CU_AD_FORMAT_UNORM_INT16X1:
	case CU_AD_FORMAT_UNORM_INT16X2:
	case CU_AD_FORMAT_UNORM_INT16X4:
	case CU_AD_FORMAT_SNORM_INT16X1:
	case CU_AD_FORMAT_SNORM_INT16X2:
	case CU_AD_FORMAT_SNORM_INT16X4: return 2;
	case CU_AD_FORMAT_UNSIGNED_INT32:
	case CU_AD_FORMAT_SIGNED_INT32:
	case CU_AD_FORMAT_FLOAT: return 4;
	default: return 0;
	}
}

static uint64_t at_least_one(uint64_t value)
{
	return value ? value : 1;
}

/* A block-compressed format's bytes per 4 x 4 block; 0 for others. */
static unsigned block_bytes(CUarray_format format)
{
	switch (format) {
	case CU_AD_FORMAT_BC1_UNORM:
	case CU_AD_FORMAT_BC1_UNORM_SRGB:
	case CU_AD_FORMAT_BC4_UNORM:
	case CU_AD_FORMAT_BC4_SNORM: return 8;
	case CU_AD_FORMAT_BC2_UNORM:
	case CU_AD_FORMAT_BC2_UNORM_SRGB:
	case CU_AD_FORMAT_BC3_UNORM:
	case CU_AD_FORMAT_BC3_UNORM_SRGB:
	case CU_AD_FORMAT_BC5_UNORM:
	case CU_AD_FORMAT_BC5_SNORM:
	case CU_AD_FORMAT_BC6H_UF16:
	case CU_AD_FORMAT_BC6H_SF16:
	case CU_AD_FORMAT_BC7_UNORM:
	case CU_AD_FORMAT_BC7_UNORM_SRGB: return 16;
	default: return 0;
	}
}

/* A block-compressed array's rows are rows of 4 x 4 blocks. */
static uint64_t level_bytes(const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned level)
{
	uint64_t element = (uint64_t)sim_format_bytes(desc->Format) * desc->NumChannels;
	uint64_t width = at_least_one(desc->Width >> level);
	uint64_t height = at_least_one(desc->Height >> level);
	if (block_bytes(desc->Format)) {
		element = block_bytes(desc->Format);
		width = (width + 3) / 4;
		height = (height + 3) / 4;
	}
	uint64_t depth = desc->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)
				 ? at_least_one(desc->Depth)
				 : at_least_one(desc->Depth >> level);
	uint64_t row = sim_round_up(sim_multiply(width, element), SIM_ARRAY_ROW_ALIGNMENT);
	return sim_multiply(sim_multiply(row, height), depth);
}

/* A cubemap is square with six faces, or six a layer when layered. */
static bool valid_cubemap(const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
	if (!(desc->Flags & CUDA_ARRAY3D_CUBEMAP))
		return true;
	bool layered = desc->Flags & CUDA_ARRAY3D_LAYERED;
	return desc->Width == desc->Height &&
	       (layered ? desc->Depth && desc->Depth % 6 == 0 : desc->Depth == 6);
}

static bool valid(const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned levels)
{
	unsigned channels = desc->NumChannels;
	return desc->Width && (sim_format_bytes(desc->Format) || block_bytes(desc->Format)) &&
	       valid_cubemap(desc) && (channels == 1 || channels == 2 || channels == 4) &&
	       levels >= 1 &&
	       (levels == 1 || (desc->Width >> (levels - 1)) || (desc->Height >> (levels - 1)));
}

CUresult sim_array_create(void **handle, const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned levels,
			  bool mipmapped, bool charged)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!handle || !desc || !valid(desc, levels))
		return CUDA_ERROR_INVALID_VALUE;
	uint64_t bytes = 0;
	for (unsigned level = 0; level < levels; level++)
		bytes = sim_add(bytes, level_bytes(desc, level));
	if (bytes > SIM_MAX_BYTES)
		return CUDA_ERROR_OUT_OF_MEMORY;
	uint64_t charge = charged ? sim_round_up(bytes, sim_config()->granularity) : 0;
	struct sim_array *array = malloc(sizeof(*array));
	if (!array)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*array = (struct sim_array){device, mipmapped, bytes, charge, *desc, sim_current_context(),
				    NULL,   NULL};
	pthread_mutex_lock(&sim_lock);
	uint64_t used = sim_device_used(device), capacity = sim_devices[device].capacity;
	bool fits = used <= capacity && charge <= capacity - used;
	if (fits) {
		sim_devices[device].charged += charge;
		link_locked(array);
	}
	pthread_mutex_unlock(&sim_lock);
	if (!fits) {
		free(array);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*handle = array;
	return CUDA_SUCCESS;
}

/* Array handles are never checked against a list: like the real driver's,
 * a stale one is the program's bug. */
static CUresult destroy(void *handle, bool mipmapped)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	pthread_mutex_lock(&sim_lock);
	struct sim_array *array = live_locked(handle, mipmapped);
	if (array)
		unlink_locked(array);
	pthread_mutex_unlock(&sim_lock);
	free(array);
	return array ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUDA_ARRAY3D_DESCRIPTOR from_2d(const CUDA_ARRAY_DESCRIPTOR *desc)
{
	return (CUDA_ARRAY3D_DESCRIPTOR){.Width = desc->Width,
					 .Height = desc->Height,
					 .Format = desc->Format,
					 .NumChannels = desc->NumChannels};
}

static CUresult untraced_cuArrayCreate_v2(CUarray *handle, const CUDA_ARRAY_DESCRIPTOR *desc)
{
	if (!desc)
		return CUDA_ERROR_INVALID_VALUE;
	CUDA_ARRAY3D_DESCRIPTOR full = from_2d(desc);
	return sim_array_create((void **)handle, &full, 1, false, true);
}

SIM_EXPORT CUresult cuArrayCreate_v2(CUarray *handle, const CUDA_ARRAY_DESCRIPTOR *desc)
{
	cuArrayCreate_v2_params params = {handle, desc};
	return SIM_TRACED(cuArrayCreate_v2, &params, untraced_cuArrayCreate_v2(handle, desc));
}

/* A sparse or deferred-mapping array is backed only by what is mapped into
 * it later (cuMemMapArrayAsync): creating it charges nothing. */
static bool backed_at_creation(const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
	return !desc || !(desc->Flags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING));
}

static CUresult untraced_cuArray3DCreate_v2(CUarray *handle, const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
	return sim_array_create((void **)handle, desc, 1, false, backed_at_creation(desc));
}

SIM_EXPORT CUresult cuArray3DCreate_v2(CUarray *handle, const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
	cuArray3DCreate_v2_params params = {handle, desc};
	return SIM_TRACED(cuArray3DCreate_v2, &params, untraced_cuArray3DCreate_v2(handle, desc));
}

static CUresult untraced_cuMipmappedArrayCreate(CUmipmappedArray *handle,
						const CUDA_ARRAY3D_DESCRIPTOR *desc,
						unsigned int levels)
{
	return sim_array_create((void **)handle, desc, levels, true, backed_at_creation(desc));
}

SIM_EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray *handle,
					   const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned int levels)
{
	cuMipmappedArrayCreate_params params = {handle, desc, levels};
	return SIM_TRACED(cuMipmappedArrayCreate, &params,
			  untraced_cuMipmappedArrayCreate(handle, desc, levels));
}

static CUresult untraced_cuArrayDestroy(CUarray handle)
{
	return destroy(handle, false);
}

SIM_EXPORT CUresult cuArrayDestroy(CUarray handle)
{
	cuArrayDestroy_params params = {handle};
	return SIM_TRACED(cuArrayDestroy, &params, untraced_cuArrayDestroy(handle));
}

CUresult untraced_cuMipmappedArrayDestroy(CUmipmappedArray handle)
{
	return destroy(handle, true);
}

SIM_EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray handle)
{
	cuMipmappedArrayDestroy_params params = {handle};
	return SIM_TRACED(cuMipmappedArrayDestroy, &params,
			  untraced_cuMipmappedArrayDestroy(handle));
}

static CUresult requirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *out, void *handle, bool mipmapped,
			     CUdevice device)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	const struct sim_array *array = handle;
	if (!out || !live(array, mipmapped))
		return CUDA_ERROR_INVALID_VALUE;
	if (!(array->desc.Flags & CUDA_ARRAY3D_DEFERRED_MAPPING))
		return CUDA_ERROR_INVALID_VALUE;
	if (!sim_valid_device(device))
		return CUDA_ERROR_INVALID_DEVICE;
	*out = (CUDA_ARRAY_MEMORY_REQUIREMENTS){.size = array->bytes,
						.alignment = SIM_ARRAY_ROW_ALIGNMENT};
	return CUDA_SUCCESS;
}

uint64_t sim_array_bytes(const void *handle)
{
	return ((const struct sim_array *)handle)->bytes;
}

SIM_EXPORT CUresult cuArrayGetMemoryRequirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *out,
						 CUarray handle, CUdevice device)
{
	return requirements(out, handle, false, device);
}

SIM_EXPORT CUresult cuMipmappedArrayGetMemoryRequirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *out,
							  CUmipmappedArray handle, CUdevice device)
{
	return requirements(out, handle, true, device);
}

SIM_EXPORT CUresult cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR *desc, CUarray handle)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	const struct sim_array *array = (const struct sim_array *)handle;
	if (!live(array, false))
		return CUDA_ERROR_INVALID_HANDLE;
	if (!desc)
		return CUDA_ERROR_INVALID_VALUE;
	*desc = array->desc;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR *desc, CUarray handle)
{
	CUDA_ARRAY3D_DESCRIPTOR full;
	CUresult rc = cuArray3DGetDescriptor(&full, handle);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!desc)
		return CUDA_ERROR_INVALID_VALUE;
	*desc = (CUDA_ARRAY_DESCRIPTOR){full.Width, full.Height, full.Format, full.NumChannels};
	return CUDA_SUCCESS;
}

/* A copy between an array and linear memory, which sees the array as its
 * rows of elements laid end to end: the span must lie inside it. */
static CUresult array_span(CUarray handle, size_t offset, size_t bytes)
{
	CUDA_ARRAY3D_DESCRIPTOR desc;
	CUresult rc = cuArray3DGetDescriptor(&desc, handle);
	if (rc != CUDA_SUCCESS)
		return rc;
	uint64_t total = (uint64_t)desc.Width * sim_format_bytes(desc.Format) * desc.NumChannels *
			 at_least_one(desc.Height) * at_least_one(desc.Depth);
	return offset <= total && bytes <= total - offset ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuMemcpyHtoA(CUarray dst, size_t offset, const void *src, size_t bytes)
{
	if (!src && bytes)
		return CUDA_ERROR_INVALID_VALUE;
	return array_span(dst, offset, bytes);
}

SIM_EXPORT CUresult cuMemcpyAtoH(void *dst, CUarray src, size_t offset, size_t bytes)
{
	if (!dst && bytes)
		return CUDA_ERROR_INVALID_VALUE;
	return array_span(src, offset, bytes);
}

SIM_EXPORT CUresult cuMemcpyDtoA(CUarray dst, size_t offset, CUdeviceptr src, size_t bytes)
{
	if (!src && bytes)
		return CUDA_ERROR_INVALID_VALUE;
	return array_span(dst, offset, bytes);
}

SIM_EXPORT CUresult cuMemcpyAtoD(CUdeviceptr dst, CUarray src, size_t offset, size_t bytes)
{
	if (!dst && bytes)
		return CUDA_ERROR_INVALID_VALUE;
	return array_span(src, offset, bytes);
}
