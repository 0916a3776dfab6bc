/* Stand-in runtime: 3-D copies and sets, through the driver's cuMemcpy3D
 * and cuMemsetD2D8 as the real runtime makes them. With an array on either
 * side, positions and widths count the array's elements; without, bytes. */
#include "runtime.h"

/* Whether a pointer the program calls a device's is one. */
static bool on_device(const void *ptr, enum cudaMemcpyKind kind, bool source)
{
	if (kind != cudaMemcpyDefault)
		return source ? kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice
			      : kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
	unsigned int type = 0;
	return rt_driver.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					       (CUdeviceptr)ptr) == CUDA_SUCCESS &&
	       type != CU_MEMORYTYPE_HOST;
}

struct side_3d {
	CUmemorytype *type;
	const void **host;
	CUdeviceptr *device;
	CUarray *array;
	size_t *x_bytes, *y, *z, *pitch, *height;
};

static void describe(struct side_3d out, cudaArray_t array, struct cudaPos pos,
		     struct cudaPitchedPtr ptr, size_t element, bool device)
{
	*out.x_bytes = pos.x * element;
	*out.y = pos.y;
	*out.z = pos.z;
	if (array) {
		*out.type = CU_MEMORYTYPE_ARRAY;
		*out.array = (CUarray)array;
		return;
	}
	*out.type = device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
	*out.host = ptr.ptr;
	*out.device = (CUdeviceptr)ptr.ptr;
	*out.pitch = ptr.pitch;
	*out.height = ptr.ysize;
}

static cudaError_t copy_3d(const struct cudaMemcpy3DParms *p)
{
	if (!p || (p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr))
		return rt_fail(cudaErrorInvalidValue);
	if ((unsigned)p->kind > cudaMemcpyDefault)
		return rt_fail(cudaErrorInvalidMemcpyDirection);
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	cudaArray_const_t array = p->srcArray ? p->srcArray : p->dstArray;
	size_t element = 1;
	if (array && (error = rt_array_element_bytes(array, &element)) != cudaSuccess)
		return error;
	CUDA_MEMCPY3D copy = {.WidthInBytes = p->extent.width * element,
			      .Height = p->extent.height,
			      .Depth = p->extent.depth};
	describe((struct side_3d){&copy.srcMemoryType, &copy.srcHost, &copy.srcDevice,
				  &copy.srcArray, &copy.srcXInBytes, &copy.srcY, &copy.srcZ,
				  &copy.srcPitch, &copy.srcHeight},
		 p->srcArray, p->srcPos, p->srcPtr, element,
		 on_device(p->srcPtr.ptr, p->kind, true));
	describe((struct side_3d){&copy.dstMemoryType, (const void **)&copy.dstHost,
				  &copy.dstDevice, &copy.dstArray, &copy.dstXInBytes, &copy.dstY,
				  &copy.dstZ, &copy.dstPitch, &copy.dstHeight},
		 p->dstArray, p->dstPos, p->dstPtr, element,
		 on_device(p->dstPtr.ptr, p->kind, false));
	return rt_result(rt_driver.cuMemcpy3D(&copy));
}

RT_EXPORT cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *params)
{
	return copy_3d(params);
}

RT_EXPORT cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *params, cudaStream_t stream)
{
	return rt_stream_capturing(stream) ? cudaSuccess : copy_3d(params);
}

/* Each layer's rows, through the driver's 2-D set. */
static cudaError_t set_3d(struct cudaPitchedPtr ptr, int value, struct cudaExtent extent)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	if (extent.height > ptr.ysize && extent.depth > 1)
		return rt_fail(cudaErrorInvalidValue);
	for (size_t z = 0; z < extent.depth; z++) {
		CUdeviceptr layer = (CUdeviceptr)ptr.ptr + z * ptr.pitch * ptr.ysize;
		CUresult rc = rt_driver.cuMemsetD2D8(layer, ptr.pitch, (unsigned char)value,
						     extent.width, extent.height);
		if (rc != CUDA_SUCCESS)
			return rt_result(rc);
	}
	return cudaSuccess;
}

RT_EXPORT cudaError_t cudaMemset3D(struct cudaPitchedPtr ptr, int value, struct cudaExtent extent)
{
	return set_3d(ptr, value, extent);
}

RT_EXPORT cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr ptr, int value,
					struct cudaExtent extent, cudaStream_t stream)
{
	return rt_stream_capturing(stream) ? cudaSuccess : set_3d(ptr, value, extent);
}
