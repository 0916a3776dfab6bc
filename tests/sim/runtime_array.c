/* Stand-in runtime: CUDA arrays, made through the driver's
 * cuArray3DCreate and cuMipmappedArrayCreate from a channel description
 * (x, y, z, w bits of one kind); the array flags share the driver's values. */
#include <stdbool.h>

#include "runtime.h"

bool rt_channel_format(const struct cudaChannelFormatDesc *desc, CUarray_format *format,
		       unsigned *channels)
{
	int bits = desc->x;
	*channels = (desc->x > 0) + (desc->y > 0) + (desc->z > 0) + (desc->w > 0);
	if (*channels == 3 || *channels == 0)
		return false;
	if ((desc->y && desc->y != bits) || (desc->z && desc->z != bits) ||
	    (desc->w && desc->w != bits))
		return false;
	switch (desc->f) {
	case cudaChannelFormatKindUnsigned:
		*format = bits == 8    ? CU_AD_FORMAT_UNSIGNED_INT8
			  : bits == 16 ? CU_AD_FORMAT_UNSIGNED_INT16
				       : CU_AD_FORMAT_UNSIGNED_INT32;
		return bits == 8 || bits == 16 || bits == 32;
	case cudaChannelFormatKindSigned:
		*format = bits == 8    ? CU_AD_FORMAT_SIGNED_INT8
			  : bits == 16 ? CU_AD_FORMAT_SIGNED_INT16
				       : CU_AD_FORMAT_SIGNED_INT32;
		return bits == 8 || bits == 16 || bits == 32;
	case cudaChannelFormatKindFloat:
		*format = bits == 16 ? CU_AD_FORMAT_HALF : CU_AD_FORMAT_FLOAT;
		return bits == 16 || bits == 32;
	default: return false;
	}
}

static cudaError_t describe(const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
			    unsigned int flags, CUDA_ARRAY3D_DESCRIPTOR *out)
{
	if (!desc)
		return rt_fail(cudaErrorInvalidValue);
	*out = (CUDA_ARRAY3D_DESCRIPTOR){.Width = extent.width,
					 .Height = extent.height,
					 .Depth = extent.depth,
					 .Flags = flags};
	if (!rt_channel_format(desc, &out->Format, &out->NumChannels))
		return rt_fail(cudaErrorInvalidChannelDescriptor);
	return rt_context();
}

static cudaError_t untraced_cudaMalloc3DArray(cudaArray_t *array,
					      const struct cudaChannelFormatDesc *desc,
					      struct cudaExtent extent, unsigned int flags)
{
	CUDA_ARRAY3D_DESCRIPTOR full;
	cudaError_t error = describe(desc, extent, flags, &full);
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuArray3DCreate((CUarray *)array, &full));
}

RT_EXPORT cudaError_t cudaMalloc3DArray(cudaArray_t *array,
					const struct cudaChannelFormatDesc *desc,
					struct cudaExtent extent, unsigned int flags)
{
	cudaMalloc3DArray_v3020_params params = {array, desc, extent, flags};
	return RT_TRACED(cudaMalloc3DArray_v3020, &params,
			 untraced_cudaMalloc3DArray(array, desc, extent, flags));
}

static cudaError_t untraced_cudaMallocArray(cudaArray_t *array,
					    const struct cudaChannelFormatDesc *desc, size_t width,
					    size_t height, unsigned int flags)
{
	return untraced_cudaMalloc3DArray(array, desc, (struct cudaExtent){width, height, 0},
					  flags);
}

RT_EXPORT cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
				      size_t width, size_t height, unsigned int flags)
{
	cudaMallocArray_v3020_params params = {array, desc, width, height, flags};
	return RT_TRACED(cudaMallocArray_v3020, &params,
			 untraced_cudaMallocArray(array, desc, width, height, flags));
}

static cudaError_t untraced_cudaMallocMipmappedArray(cudaMipmappedArray_t *array,
						     const struct cudaChannelFormatDesc *desc,
						     struct cudaExtent extent, unsigned int levels,
						     unsigned int flags)
{
	CUDA_ARRAY3D_DESCRIPTOR full;
	cudaError_t error = describe(desc, extent, flags, &full);
	if (error != cudaSuccess)
		return error;
	return rt_result(
		rt_driver.cuMipmappedArrayCreate((CUmipmappedArray *)array, &full, levels));
}

RT_EXPORT cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *array,
					       const struct cudaChannelFormatDesc *desc,
					       struct cudaExtent extent, unsigned int levels,
					       unsigned int flags)
{
	cudaMallocMipmappedArray_v5000_params params = {array, desc, extent, levels, flags};
	return RT_TRACED(cudaMallocMipmappedArray_v5000, &params,
			 untraced_cudaMallocMipmappedArray(array, desc, extent, levels, flags));
}

/* Freeing NULL is a no-op, as for cudaFree. */
static cudaError_t untraced_cudaFreeArray(cudaArray_t array)
{
	if (!array)
		return cudaSuccess;
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuArrayDestroy((CUarray)array));
}

RT_EXPORT cudaError_t cudaFreeArray(cudaArray_t array)
{
	cudaFreeArray_v3020_params params = {array};
	return RT_TRACED(cudaFreeArray_v3020, &params, untraced_cudaFreeArray(array));
}

static cudaError_t untraced_cudaFreeMipmappedArray(cudaMipmappedArray_t array)
{
	if (!array)
		return cudaSuccess;
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMipmappedArrayDestroy((CUmipmappedArray)array));
}

RT_EXPORT cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t array)
{
	cudaFreeMipmappedArray_v5000_params params = {array};
	return RT_TRACED(cudaFreeMipmappedArray_v5000, &params,
			 untraced_cudaFreeMipmappedArray(array));
}

RT_EXPORT struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
							     enum cudaChannelFormatKind kind)
{
	return (struct cudaChannelFormatDesc){x, y, z, w, kind};
}

RT_EXPORT cudaError_t cudaArrayGetMemoryRequirements(struct cudaArrayMemoryRequirements *out,
						     cudaArray_t array, int device)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuArrayGetMemoryRequirements(
		(CUDA_ARRAY_MEMORY_REQUIREMENTS *)out, (CUarray)array, device));
}

RT_EXPORT cudaError_t cudaMipmappedArrayGetMemoryRequirements(
	struct cudaArrayMemoryRequirements *out, cudaMipmappedArray_t array, int device)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuMipmappedArrayGetMemoryRequirements(
		(CUDA_ARRAY_MEMORY_REQUIREMENTS *)out, (CUmipmappedArray)array, device));
}

RT_EXPORT cudaError_t cudaExternalMemoryGetMappedMipmappedArray(
	cudaMipmappedArray_t *array, cudaExternalMemory_t external,
	const struct cudaExternalMemoryMipmappedArrayDesc *desc)
{
	if (!desc)
		return rt_fail(cudaErrorInvalidValue);
	CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC driver_desc = {.offset = desc->offset,
								 .numLevels = desc->numLevels};
	cudaError_t error =
		describe(&desc->formatDesc, desc->extent, desc->flags, &driver_desc.arrayDesc);
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuExternalMemoryGetMappedMipmappedArray(
		(CUmipmappedArray *)array, (CUexternalMemory)external, &driver_desc));
}

/* The channel description an array was made with, read back from the
 * driver's format: x, y, z, w bits of one kind. */
static struct cudaChannelFormatDesc channel_of(const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
	int bits = 8;
	enum cudaChannelFormatKind kind = cudaChannelFormatKindUnsigned;
	switch (desc->Format) {
	case CU_AD_FORMAT_SIGNED_INT8: kind = cudaChannelFormatKindSigned; break;
	case CU_AD_FORMAT_UNSIGNED_INT16: bits = 16; break;
	case CU_AD_FORMAT_SIGNED_INT16: bits = 16, kind = cudaChannelFormatKindSigned; break;
	case CU_AD_FORMAT_UNSIGNED_INT32: bits = 32; break;
	case CU_AD_FORMAT_SIGNED_INT32: bits = 32, kind = cudaChannelFormatKindSigned; break;
	case CU_AD_FORMAT_HALF: bits = 16, kind = cudaChannelFormatKindFloat; break;
	case CU_AD_FORMAT_FLOAT: bits = 32, kind = cudaChannelFormatKindFloat; break;
	default: break;
	}
	unsigned channels = desc->NumChannels;
	return cudaCreateChannelDesc(bits, channels > 1 ? bits : 0, channels > 2 ? bits : 0,
				     channels > 3 ? bits : 0, kind);
}

static cudaError_t describe_array(cudaArray_const_t array, CUDA_ARRAY3D_DESCRIPTOR *desc)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuArray3DGetDescriptor(desc, (CUarray)array));
}

RT_EXPORT cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *channel,
					 cudaArray_const_t array)
{
	if (!channel)
		return rt_fail(cudaErrorInvalidValue);
	CUDA_ARRAY3D_DESCRIPTOR desc;
	cudaError_t error = describe_array(array, &desc);
	if (error == cudaSuccess)
		*channel = channel_of(&desc);
	return error;
}

/* Array flags share the driver's values. */
RT_EXPORT cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *channel,
				       struct cudaExtent *extent, unsigned int *flags,
				       cudaArray_t array)
{
	CUDA_ARRAY3D_DESCRIPTOR desc;
	cudaError_t error = describe_array(array, &desc);
	if (error != cudaSuccess)
		return error;
	if (channel)
		*channel = channel_of(&desc);
	if (extent)
		*extent = (struct cudaExtent){desc.Width, desc.Height, desc.Depth};
	if (flags)
		*flags = desc.Flags;
	return cudaSuccess;
}
