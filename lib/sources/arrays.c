/* CUDA arrays and mipmapped arrays (textures, surfaces): device memory
 * behind an opaque handle, which stands in for the address. The driver
 * says how much memory an array takes only for one whose memory is mapped
 * later (cuArrayGetMemoryRequirements refuses any other with
 * CUDA_ERROR_INVALID_VALUE), and those are not recorded here; so an
 * array's size is its elements' bytes, computed from the descriptor
 * without the padding the driver's opaque layout adds. */
#include <stdatomic.h>

#include "../core/counter.h"
#include "call.h"
#include "observer.h"

/* The bytes of one element: its channels' bytes times their count (the
 * normalized formats name their count, which NumChannels repeats), or 4
 * for the packed R10G10B10A2. */
static uint64_t element_bytes(const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
	switch (desc->Format) {
	case CU_AD_FORMAT_UNSIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT8:
	case CU_AD_FORMAT_UNORM_INT8X1:
	case CU_AD_FORMAT_UNORM_INT8X2:
	case CU_AD_FORMAT_UNORM_INT8X4:
	case CU_AD_FORMAT_SNORM_INT8X1:
	case CU_AD_FORMAT_SNORM_INT8X2:
	case CU_AD_FORMAT_SNORM_INT8X4: return desc->NumChannels;
	case CU_AD_FORMAT_UNSIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_HALF:
	case CU_AD_FORMAT_UNORM_INT16X1:
	case CU_AD_FORMAT_UNORM_INT16X2:
	case CU_AD_FORMAT_UNORM_INT16X4:
	case CU_AD_FORMAT_SNORM_INT16X1:
	case CU_AD_FORMAT_SNORM_INT16X2:
	case CU_AD_FORMAT_SNORM_INT16X4: return 2ull * desc->NumChannels;
	case CU_AD_FORMAT_UNORM_INT_101010_2: return 4;
	default: return 4ull * desc->NumChannels;
	}
}

static uint64_t at_least_one(uint64_t value)
{
	return value ? value : 1;
}

/* A block-compressed format's bytes per block of 4 x 4 elements (8 for
 * BC1 and BC4, 16 for the others); 0 for any other format. */
static uint64_t block_bytes(CUarray_format format)
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

/* One level's width x height plane: elements, or whole 4 x 4 blocks. */
static uint64_t plane_bytes(const CUDA_ARRAY3D_DESCRIPTOR *desc, uint64_t width, uint64_t height)
{
	uint64_t block = block_bytes(desc->Format);
	if (block)
		return vt_mul_bytes(vt_mul_bytes(block, (width + 3) / 4), (height + 3) / 4);
	return vt_mul_bytes(vt_mul_bytes(element_bytes(desc), width), height);
}

/* Each mipmap level halves width and height (a block-compressed level
 * holds whole blocks), and a 3D array's depth (never
 * below 1), but not a layered array's layers or a cubemap's faces. */
static uint64_t computed_bytes(const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned levels)
{
	uint64_t bytes = 0;
	bool layers = desc->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP);
	for (unsigned level = 0; level < levels && level < 64; level++) {
		uint64_t depth = layers ? desc->Depth : desc->Depth >> level;
		uint64_t level_bytes =
			vt_mul_bytes(plane_bytes(desc, at_least_one(desc->Width >> level),
						 at_least_one(desc->Height >> level)),
				     at_least_one(depth));
		bytes = vt_add_bytes(bytes, level_bytes);
	}
	return bytes;
}

/* A sparse array, or one whose memory is mapped later (CUDA_ARRAY3D_SPARSE,
 * CUDA_ARRAY3D_DEFERRED_MAPPING), holds no memory of its own: what backs it
 * is the cuMemCreate handles cuMemMapArrayAsync maps into it, counted as
 * vmm. Such arrays are not recorded; their handles are kept here, so that
 * their destroys are known for what they are. A slot is a handle or 0;
 * with every slot taken, one is recorded as any array. */
#define UNBACKED_SLOTS 256
static _Atomic uintptr_t unbacked[UNBACKED_SLOTS];
static atomic_uint unbacked_count;

static bool holds_no_memory(const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
	return desc->Flags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING);
}

static bool note_unbacked(uintptr_t handle)
{
	for (unsigned i = 0; i < UNBACKED_SLOTS; i++) {
		uintptr_t empty = 0;
		if (atomic_compare_exchange_strong(&unbacked[i], &empty, handle)) {
			atomic_fetch_add(&unbacked_count, 1);
			return true;
		}
	}
	return false;
}

static bool forget_unbacked(uintptr_t handle)
{
	if (!atomic_load_explicit(&unbacked_count, memory_order_relaxed))
		return false;
	for (unsigned i = 0; i < UNBACKED_SLOTS; i++) {
		uintptr_t held = handle;
		if (atomic_compare_exchange_strong(&unbacked[i], &held, 0)) {
			atomic_fetch_sub(&unbacked_count, 1);
			return true;
		}
	}
	return false;
}

static void record_create(const struct vt_observer *self, CUresult rc, void *handle,
			  const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned levels)
{
	if (!desc)
		return;
	if (holds_no_memory(desc) && (rc != CUDA_SUCCESS || note_unbacked((uintptr_t)handle)))
		return;
	if (rc == CUDA_SUCCESS)
		forget_unbacked((uintptr_t)handle); /* one a context's end took */
	if (rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_ARRAY, (uintptr_t)handle, computed_bytes(desc, levels),
			      self->name);
	else
		vt_emit_failure(VT_KIND_ARRAY, computed_bytes(desc, levels), (int)rc, self->name);
}

static void after_array_create(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuArrayCreate_v2_params *p = args;
	const CUDA_ARRAY_DESCRIPTOR *desc = p->pAllocateArray;
	if (!desc)
		return;
	CUDA_ARRAY3D_DESCRIPTOR full = {.Width = desc->Width,
					.Height = desc->Height,
					.Format = desc->Format,
					.NumChannels = desc->NumChannels};
	record_create(self, rc, rc == CUDA_SUCCESS ? *p->pHandle : NULL, &full, 1);
}
VT_OBSERVER(cuArrayCreate_v2, NULL, after_array_create);

static void after_array_3d_create(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuArray3DCreate_v2_params *p = args;
	record_create(self, rc, rc == CUDA_SUCCESS ? *p->pHandle : NULL, p->pAllocateArray, 1);
}
VT_OBSERVER(cuArray3DCreate_v2, NULL, after_array_3d_create);

static void after_mipmapped_create(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMipmappedArrayCreate_params *p = args;
	record_create(self, rc, rc == CUDA_SUCCESS ? *p->pHandle : NULL, p->pMipmappedArrayDesc,
		      p->numMipmapLevels);
}
VT_OBSERVER(cuMipmappedArrayCreate, NULL, after_mipmapped_create);

/* Memory another API allocated, seen as a mipmapped array: shown as
 * external, never counted; cuMipmappedArrayDestroy ends it. */
static void after_external_mipmapped(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuExternalMemoryGetMappedMipmappedArray_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_EXTERNAL, (uintptr_t)*p->mipmap,
			      computed_bytes(&p->mipmapDesc->arrayDesc, p->mipmapDesc->numLevels),
			      self->name);
}
VT_OBSERVER(cuExternalMemoryGetMappedMipmappedArray, NULL, after_external_mipmapped);

/* Recorded before it is forwarded, as a free is. Both destroys take the
 * handle alone. */
static void before_destroy(const struct vt_observer *self, const void *args)
{
	const cuArrayDestroy_params *p = args;
	if (p->hArray && !forget_unbacked((uintptr_t)p->hArray))
		vt_emit_free((uintptr_t)p->hArray, VT_KIND_ARRAY);
}
VT_OBSERVER(cuArrayDestroy, before_destroy, NULL);
VT_OBSERVER(cuMipmappedArrayDestroy, before_destroy, NULL);
