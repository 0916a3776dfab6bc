/* Stand-in runtime: copies into and out of CUDA arrays, checked against
 * the array's extent by the driver (1-D spans) or here (2-D regions), as
 * the real runtime checks them; nothing is copied, as kernels never read
 * it. The stream variants behave as the synchronous ones. */
#include "runtime.h"

static cudaError_t to_array(cudaArray_t dst, size_t offset, const void *src, size_t bytes,
			    enum cudaMemcpyKind kind)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	switch (kind) {
	case cudaMemcpyHostToDevice:
	case cudaMemcpyDefault:
		return rt_result(rt_driver.cuMemcpyHtoA((CUarray)dst, offset, src, bytes));
	case cudaMemcpyDeviceToDevice:
		return rt_result(
			rt_driver.cuMemcpyDtoA((CUarray)dst, offset, (CUdeviceptr)src, bytes));
	default: return rt_fail(cudaErrorInvalidMemcpyDirection);
	}
}

static cudaError_t from_array(void *dst, cudaArray_const_t src, size_t offset, size_t bytes,
			      enum cudaMemcpyKind kind)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	switch (kind) {
	case cudaMemcpyDeviceToHost:
	case cudaMemcpyDefault:
		return rt_result(rt_driver.cuMemcpyAtoH(dst, (CUarray)src, offset, bytes));
	case cudaMemcpyDeviceToDevice:
		return rt_result(
			rt_driver.cuMemcpyAtoD((CUdeviceptr)dst, (CUarray)src, offset, bytes));
	default: return rt_fail(cudaErrorInvalidMemcpyDirection);
	}
}

static size_t element_bytes(const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
	size_t channel = desc->Format == CU_AD_FORMAT_UNSIGNED_INT8 ||
					 desc->Format == CU_AD_FORMAT_SIGNED_INT8
				 ? 1
			 : desc->Format == CU_AD_FORMAT_UNSIGNED_INT16 ||
					 desc->Format == CU_AD_FORMAT_SIGNED_INT16 ||
					 desc->Format == CU_AD_FORMAT_HALF
				 ? 2
				 : 4;
	return channel * desc->NumChannels;
}

static cudaError_t describe(cudaArray_const_t array, CUDA_ARRAY3D_DESCRIPTOR *desc)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuArray3DGetDescriptor(desc, (CUarray)array));
}

cudaError_t rt_array_element_bytes(cudaArray_const_t array, size_t *bytes)
{
	CUDA_ARRAY3D_DESCRIPTOR desc;
	cudaError_t error = describe(array, &desc);
	if (error == cudaSuccess)
		*bytes = element_bytes(&desc);
	return error;
}

/* The array's row in bytes and its number of rows (layers count as rows). */
static cudaError_t array_shape(cudaArray_const_t array, size_t *row_bytes, size_t *rows)
{
	CUDA_ARRAY3D_DESCRIPTOR desc;
	cudaError_t error = describe(array, &desc);
	if (error != cudaSuccess)
		return error;
	*row_bytes = desc.Width * element_bytes(&desc);
	*rows = (desc.Height ? desc.Height : 1) * (desc.Depth ? desc.Depth : 1);
	return cudaSuccess;
}

/* A 1-D position (w_offset bytes into row h_offset) as a linear offset. */
static cudaError_t linear_offset(cudaArray_const_t array, size_t w_offset, size_t h_offset,
				 size_t *offset)
{
	size_t row_bytes = 0, rows = 0;
	cudaError_t error = array_shape(array, &row_bytes, &rows);
	if (error != cudaSuccess)
		return error;
	if (w_offset > row_bytes || h_offset >= rows)
		return rt_fail(cudaErrorInvalidValue);
	*offset = h_offset * row_bytes + w_offset;
	return cudaSuccess;
}

static cudaError_t check_region(cudaArray_const_t array, size_t w_offset, size_t h_offset,
				size_t pitch, size_t width, size_t height)
{
	size_t row_bytes = 0, rows = 0;
	cudaError_t error = array_shape(array, &row_bytes, &rows);
	if (error != cudaSuccess)
		return error;
	if (pitch < width || w_offset > row_bytes || width > row_bytes - w_offset ||
	    h_offset > rows || height > rows - h_offset)
		return rt_fail(cudaErrorInvalidValue);
	return cudaSuccess;
}

static bool to_device(enum cudaMemcpyKind kind)
{
	return kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
	       kind == cudaMemcpyDefault;
}

static bool from_device(enum cudaMemcpyKind kind)
{
	return kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
	       kind == cudaMemcpyDefault;
}

static cudaError_t copy_to_array(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src,
				 size_t bytes, enum cudaMemcpyKind kind)
{
	size_t offset = 0;
	cudaError_t error = linear_offset(dst, w_offset, h_offset, &offset);
	return error == cudaSuccess ? to_array(dst, offset, src, bytes, kind) : error;
}

static cudaError_t copy_from_array(void *dst, cudaArray_const_t src, size_t w_offset,
				   size_t h_offset, size_t bytes, enum cudaMemcpyKind kind)
{
	size_t offset = 0;
	cudaError_t error = linear_offset(src, w_offset, h_offset, &offset);
	return error == cudaSuccess ? from_array(dst, src, offset, bytes, kind) : error;
}

RT_EXPORT cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset,
					const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
	return copy_to_array(dst, w_offset, h_offset, src, bytes, kind);
}

RT_EXPORT cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset,
					     const void *src, size_t bytes,
					     enum cudaMemcpyKind kind, cudaStream_t stream)
{
	(void)stream;
	return copy_to_array(dst, w_offset, h_offset, src, bytes, kind);
}

RT_EXPORT cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t w_offset,
					  size_t h_offset, size_t bytes, enum cudaMemcpyKind kind)
{
	return copy_from_array(dst, src, w_offset, h_offset, bytes, kind);
}

RT_EXPORT cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t w_offset,
					       size_t h_offset, size_t bytes,
					       enum cudaMemcpyKind kind, cudaStream_t stream)
{
	(void)stream;
	return copy_from_array(dst, src, w_offset, h_offset, bytes, kind);
}

RT_EXPORT cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset,
					  const void *src, size_t pitch, size_t width,
					  size_t height, enum cudaMemcpyKind kind)
{
	if (!src || !to_device(kind))
		return rt_fail(src ? cudaErrorInvalidMemcpyDirection : cudaErrorInvalidValue);
	return check_region(dst, w_offset, h_offset, pitch, width, height);
}

RT_EXPORT cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset,
					       const void *src, size_t pitch, size_t width,
					       size_t height, enum cudaMemcpyKind kind,
					       cudaStream_t stream)
{
	(void)stream;
	return cudaMemcpy2DToArray(dst, w_offset, h_offset, src, pitch, width, height, kind);
}

RT_EXPORT cudaError_t cudaMemcpy2DFromArray(void *dst, size_t pitch, cudaArray_const_t src,
					    size_t w_offset, size_t h_offset, size_t width,
					    size_t height, enum cudaMemcpyKind kind)
{
	if (!dst || !from_device(kind))
		return rt_fail(dst ? cudaErrorInvalidMemcpyDirection : cudaErrorInvalidValue);
	return check_region(src, w_offset, h_offset, pitch, width, height);
}

RT_EXPORT cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t pitch, cudaArray_const_t src,
						 size_t w_offset, size_t h_offset, size_t width,
						 size_t height, enum cudaMemcpyKind kind,
						 cudaStream_t stream)
{
	(void)stream;
	return cudaMemcpy2DFromArray(dst, pitch, src, w_offset, h_offset, width, height, kind);
}
