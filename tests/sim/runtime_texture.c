/* Stand-in runtime: texture and surface objects, made by the driver from
 * the runtime's descriptions, as the real runtime makes them. */
#include <string.h>

#include "runtime.h"

static cudaError_t linear_format(const struct cudaChannelFormatDesc *desc, CUarray_format *format,
				 unsigned *channels)
{
	return rt_channel_format(desc, format, channels)
		       ? cudaSuccess
		       : rt_fail(cudaErrorInvalidChannelDescriptor);
}

/* The resource types share the driver's values. */
static cudaError_t driver_resource(const struct cudaResourceDesc *in, CUDA_RESOURCE_DESC *out)
{
	if (!in)
		return rt_fail(cudaErrorInvalidValue);
	memset(out, 0, sizeof(*out));
	out->resType = (CUresourcetype)in->resType;
	switch (in->resType) {
	case cudaResourceTypeArray: out->res.array.hArray = (CUarray)in->res.array.array; break;
	case cudaResourceTypeMipmappedArray:
		out->res.mipmap.hMipmappedArray = (CUmipmappedArray)in->res.mipmap.mipmap;
		break;
	case cudaResourceTypeLinear:
		out->res.linear.devPtr = (CUdeviceptr)in->res.linear.devPtr;
		out->res.linear.sizeInBytes = in->res.linear.sizeInBytes;
		return linear_format(&in->res.linear.desc, &out->res.linear.format,
				     &out->res.linear.numChannels);
	case cudaResourceTypePitch2D:
		out->res.pitch2D.devPtr = (CUdeviceptr)in->res.pitch2D.devPtr;
		out->res.pitch2D.width = in->res.pitch2D.width;
		out->res.pitch2D.height = in->res.pitch2D.height;
		out->res.pitch2D.pitchInBytes = in->res.pitch2D.pitchInBytes;
		return linear_format(&in->res.pitch2D.desc, &out->res.pitch2D.format,
				     &out->res.pitch2D.numChannels);
	default: return rt_fail(cudaErrorInvalidValue);
	}
	return cudaSuccess;
}

/* Address and filter modes share the driver's values. */
static void driver_texture(const struct cudaTextureDesc *in, CUDA_TEXTURE_DESC *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < 3; i++)
		out->addressMode[i] = (CUaddress_mode)in->addressMode[i];
	out->filterMode = (CUfilter_mode)in->filterMode;
	out->mipmapFilterMode = (CUfilter_mode)in->mipmapFilterMode;
	out->maxAnisotropy = in->maxAnisotropy;
	out->mipmapLevelBias = in->mipmapLevelBias;
	out->minMipmapLevelClamp = in->minMipmapLevelClamp;
	out->maxMipmapLevelClamp = in->maxMipmapLevelClamp;
	memcpy(out->borderColor, in->borderColor, sizeof(out->borderColor));
	if (in->readMode == cudaReadModeElementType)
		out->flags |= CU_TRSF_READ_AS_INTEGER;
	if (in->normalizedCoords)
		out->flags |= CU_TRSF_NORMALIZED_COORDINATES;
	if (in->sRGB)
		out->flags |= CU_TRSF_SRGB;
}

RT_EXPORT cudaError_t cudaCreateTextureObject(cudaTextureObject_t *handle,
					      const struct cudaResourceDesc *resource,
					      const struct cudaTextureDesc *texture,
					      const struct cudaResourceViewDesc *view)
{
	(void)view;
	if (!handle || !texture)
		return rt_fail(cudaErrorInvalidValue);
	CUDA_RESOURCE_DESC driver_res;
	CUDA_TEXTURE_DESC driver_tex;
	cudaError_t error = rt_context();
	if (error == cudaSuccess)
		error = driver_resource(resource, &driver_res);
	if (error != cudaSuccess)
		return error;
	driver_texture(texture, &driver_tex);
	return rt_result(rt_driver.cuTexObjectCreate(handle, &driver_res, &driver_tex, NULL));
}

RT_EXPORT cudaError_t cudaDestroyTextureObject(cudaTextureObject_t handle)
{
	cudaError_t error = rt_context();
	return error == cudaSuccess ? rt_result(rt_driver.cuTexObjectDestroy(handle)) : error;
}

RT_EXPORT cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *handle,
					      const struct cudaResourceDesc *resource)
{
	if (!handle)
		return rt_fail(cudaErrorInvalidValue);
	CUDA_RESOURCE_DESC driver_res;
	cudaError_t error = rt_context();
	if (error == cudaSuccess)
		error = driver_resource(resource, &driver_res);
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuSurfObjectCreate(handle, &driver_res));
}

RT_EXPORT cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t handle)
{
	cudaError_t error = rt_context();
	return error == cudaSuccess ? rt_result(rt_driver.cuSurfObjectDestroy(handle)) : error;
}
