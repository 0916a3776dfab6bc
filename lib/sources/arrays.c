/* CUDA arrays and mipmapped arrays (textures, surfaces): device memory
 * behind an opaque handle, which stands in for the address. The size is
 * the driver's own (cuArrayGetMemoryRequirements), or, where the driver
 * cannot say, computed from the descriptor without any padding. */
#include <cuda.h>
#include <errno.h>

#include "call.h"
#include "driver_hooks.h"
#include "driver_query.h"

static uint64_t element_bytes(CUarray_format format)
{
	switch (format) {
	case CU_AD_FORMAT_UNSIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT8: return 1;
	case CU_AD_FORMAT_UNSIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_HALF: return 2;
	default: return 4;
	}
}

static uint64_t at_least_one(uint64_t value)
{
	return value ? value : 1;
}

/* Each mipmap level halves every extent (never below 1) but a layered
 * array's layer count. */
static uint64_t computed_bytes(const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned levels)
{
	uint64_t element = element_bytes(desc->Format) * desc->NumChannels, bytes = 0;
	bool layered = desc->Flags & CUDA_ARRAY3D_LAYERED;
	for (unsigned level = 0; level < levels && level < 64; level++) {
		uint64_t depth = layered ? desc->Depth : desc->Depth >> level;
		bytes += element * at_least_one(desc->Width >> level) *
			 at_least_one(desc->Height >> level) * at_least_one(depth);
	}
	return bytes;
}

static uint64_t array_bytes(void *handle, bool mipmapped, const CUDA_ARRAY3D_DESCRIPTOR *desc,
			    unsigned levels)
{
	uint64_t bytes = vt_driver_array_size(handle, mipmapped);
	return bytes ? bytes : computed_bytes(desc, levels);
}

static void after_create(bool outer, CUresult rc, void *handle, bool mipmapped,
			 const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned levels,
			 const char *driver_api)
{
	if (!outer || !desc)
		return;
	if (rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_ARRAY, (uintptr_t)handle,
			      array_bytes(handle, mipmapped, desc, levels), driver_api);
	else
		vt_emit_failure(VT_KIND_ARRAY, computed_bytes(desc, levels), (int)rc, driver_api);
}

typedef CUresult (*array_create_fn)(CUarray *, const CUDA_ARRAY_DESCRIPTOR *);

VT_EXPORT CUresult cuArrayCreate_v2(CUarray *handle, const CUDA_ARRAY_DESCRIPTOR *desc)
{
	VT_REAL("cuArrayCreate_v2", VT_LEGACY_STREAM, array_create_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(handle, desc);
	int saved_errno = errno;
	if (desc) {
		CUDA_ARRAY3D_DESCRIPTOR full = {.Width = desc->Width,
						.Height = desc->Height,
						.Format = desc->Format,
						.NumChannels = desc->NumChannels};
		after_create(outer, rc, rc == CUDA_SUCCESS ? *handle : NULL, false, &full, 1,
			     "cuArrayCreate_v2");
	}
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*array_3d_create_fn)(CUarray *, const CUDA_ARRAY3D_DESCRIPTOR *);

VT_EXPORT CUresult cuArray3DCreate_v2(CUarray *handle, const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
	VT_REAL("cuArray3DCreate_v2", VT_LEGACY_STREAM, array_3d_create_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(handle, desc);
	int saved_errno = errno;
	after_create(outer, rc, rc == CUDA_SUCCESS ? *handle : NULL, false, desc, 1,
		     "cuArray3DCreate_v2");
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*mipmapped_create_fn)(CUmipmappedArray *, const CUDA_ARRAY3D_DESCRIPTOR *,
					unsigned int);

VT_EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray *handle,
					  const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned int levels)
{
	VT_REAL("cuMipmappedArrayCreate", VT_LEGACY_STREAM, mipmapped_create_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(handle, desc, levels);
	int saved_errno = errno;
	after_create(outer, rc, rc == CUDA_SUCCESS ? *handle : NULL, true, desc, levels,
		     "cuMipmappedArrayCreate");
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*external_mipmapped_fn)(CUmipmappedArray *, CUexternalMemory,
					  const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *);

/* Memory another API allocated, seen as a mipmapped array: shown as
 * external, never counted; cuMipmappedArrayDestroy ends it. */
VT_EXPORT CUresult
cuExternalMemoryGetMappedMipmappedArray(CUmipmappedArray *handle, CUexternalMemory external,
					const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *desc)
{
	VT_REAL("cuExternalMemoryGetMappedMipmappedArray", VT_LEGACY_STREAM, external_mipmapped_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(handle, external, desc);
	int saved_errno = errno;
	if (outer && rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_EXTERNAL, (uintptr_t)*handle,
			      array_bytes(*handle, true, &desc->arrayDesc, desc->numLevels),
			      "cuExternalMemoryGetMappedMipmappedArray");
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*array_destroy_fn)(void *);

/* Recorded before it is forwarded, as a free is. */
static CUresult destroy(array_destroy_fn real, void *handle, const char *driver_api)
{
	bool outer = vt_driver_enter();
	int saved_errno = errno;
	if (outer && handle)
		vt_emit_free((uintptr_t)handle, VT_KIND_DEVICE, driver_api);
	errno = saved_errno;
	CUresult rc = real(handle);
	vt_driver_leave();
	return rc;
}

VT_EXPORT CUresult cuArrayDestroy(CUarray handle)
{
	VT_REAL("cuArrayDestroy", VT_LEGACY_STREAM, array_destroy_fn);
	return destroy(real, handle, "cuArrayDestroy");
}

VT_EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray handle)
{
	VT_REAL("cuMipmappedArrayDestroy", VT_LEGACY_STREAM, array_destroy_fn);
	return destroy(real, handle, "cuMipmappedArrayDestroy");
}
