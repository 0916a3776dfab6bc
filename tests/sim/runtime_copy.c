/* Stand-in runtime: copies and sets, each through the driver as the real
 * runtime makes them. Device and host share one address space here, so a
 * __device__ variable's storage is its host shadow. */
#include <string.h>

#include "runtime.h"

static CUresult copy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	switch (kind) {
	case cudaMemcpyHostToHost: memmove(dst, src, count); return CUDA_SUCCESS;
	case cudaMemcpyHostToDevice: return rt_driver.cuMemcpyHtoD((CUdeviceptr)dst, src, count);
	case cudaMemcpyDeviceToHost: return rt_driver.cuMemcpyDtoH(dst, (CUdeviceptr)src, count);
	case cudaMemcpyDeviceToDevice:
		return rt_driver.cuMemcpyDtoD((CUdeviceptr)dst, (CUdeviceptr)src, count);
	default: return rt_driver.cuMemcpy((CUdeviceptr)dst, (CUdeviceptr)src, count);
	}
}

RT_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	if ((unsigned)kind > cudaMemcpyDefault)
		return rt_fail(cudaErrorInvalidMemcpyDirection);
	cudaError_t error = rt_context();
	if (error != cudaSuccess || count == 0)
		return error;
	if (!dst || !src)
		return rt_fail(cudaErrorInvalidValue);
	return rt_result(copy(dst, src, count, kind));
}

RT_EXPORT cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
				      enum cudaMemcpyKind kind)
{
	return cudaMemcpy(dst, src, count, kind);
}

RT_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
				      enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (rt_stream_capturing(stream))
		return cudaSuccess;
	return cudaMemcpy(dst, src, count, kind);
}

RT_EXPORT cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
					   enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return cudaMemcpyAsync(dst, src, count, kind, stream);
}

RT_EXPORT cudaError_t cudaMemset(void *ptr, int value, size_t count)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess || count == 0)
		return error;
	return rt_result(rt_driver.cuMemsetD8((CUdeviceptr)ptr, (unsigned char)value, count));
}

RT_EXPORT cudaError_t cudaMemset_ptds(void *ptr, int value, size_t count)
{
	return cudaMemset(ptr, value, count);
}

RT_EXPORT cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream)
{
	if (rt_stream_capturing(stream))
		return cudaSuccess;
	return cudaMemset(ptr, value, count);
}

RT_EXPORT cudaError_t cudaMemsetAsync_ptsz(void *ptr, int value, size_t count, cudaStream_t stream)
{
	return cudaMemsetAsync(ptr, value, count, stream);
}

static cudaError_t check_kind(enum cudaMemcpyKind kind)
{
	return (unsigned)kind > cudaMemcpyDefault ? rt_fail(cudaErrorInvalidMemcpyDirection)
						  : cudaSuccess;
}

RT_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
				   size_t width, size_t height, enum cudaMemcpyKind kind)
{
	cudaError_t error = check_kind(kind);
	if (error == cudaSuccess)
		error = rt_context();
	if (error != cudaSuccess || width == 0 || height == 0)
		return error;
	if (!dst || !src || width > dpitch || width > spitch)
		return rt_fail(cudaErrorInvalidValue);
	for (size_t row = 0; row < height; row++) {
		CUresult rc = copy((char *)dst + row * dpitch, (const char *)src + row * spitch,
				   width, kind);
		if (rc != CUDA_SUCCESS)
			return rt_result(rc);
	}
	return cudaSuccess;
}

RT_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
					size_t width, size_t height, enum cudaMemcpyKind kind,
					cudaStream_t stream)
{
	if (rt_stream_capturing(stream))
		return cudaSuccess;
	return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

RT_EXPORT cudaError_t cudaMemset2D(void *ptr, size_t pitch, int value, size_t width, size_t height)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess || width == 0 || height == 0)
		return error;
	if (width > pitch)
		return rt_fail(cudaErrorInvalidValue);
	for (size_t row = 0; row < height; row++) {
		CUresult rc = rt_driver.cuMemsetD8((CUdeviceptr)ptr + row * pitch,
						   (unsigned char)value, width);
		if (rc != CUDA_SUCCESS)
			return rt_result(rc);
	}
	return cudaSuccess;
}

RT_EXPORT cudaError_t cudaMemset2DAsync(void *ptr, size_t pitch, int value, size_t width,
					size_t height, cudaStream_t stream)
{
	if (rt_stream_capturing(stream))
		return cudaSuccess;
	return cudaMemset2D(ptr, pitch, value, width, height);
}

RT_EXPORT cudaError_t cudaMemcpyPeer(void *dst, int dst_device, const void *src, int src_device,
				     size_t count)
{
	(void)dst_device, (void)src_device;
	return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}

RT_EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_device, const void *src,
					  int src_device, size_t count, cudaStream_t stream)
{
	if (rt_stream_capturing(stream))
		return cudaSuccess;
	return cudaMemcpyPeer(dst, dst_device, src, src_device, count);
}

/* A registered variable, and a span of it that lies inside. */
static cudaError_t check_symbol(const void *symbol, size_t offset, size_t count)
{
	size_t bytes;
	if (!symbol || !rt_variable(symbol, &bytes))
		return rt_fail(cudaErrorInvalidSymbol);
	if (offset > bytes || count > bytes - offset)
		return rt_fail(cudaErrorInvalidValue);
	return rt_context();
}

RT_EXPORT cudaError_t cudaGetSymbolAddress(void **ptr, const void *symbol)
{
	if (!ptr)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = check_symbol(symbol, 0, 0);
	if (error == cudaSuccess)
		*ptr = (void *)symbol;
	return error;
}

RT_EXPORT cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
	if (!size)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = check_symbol(symbol, 0, 0);
	if (error == cudaSuccess)
		rt_variable(symbol, size);
	return error;
}

RT_EXPORT cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
					 size_t offset, enum cudaMemcpyKind kind)
{
	cudaError_t error = check_kind(kind);
	if (error == cudaSuccess)
		error = check_symbol(symbol, offset, count);
	if (error != cudaSuccess || count == 0)
		return error;
	if (!src)
		return rt_fail(cudaErrorInvalidValue);
	memmove((char *)symbol + offset, src, count);
	return cudaSuccess;
}

RT_EXPORT cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
					   size_t offset, enum cudaMemcpyKind kind)
{
	cudaError_t error = check_kind(kind);
	if (error == cudaSuccess)
		error = check_symbol(symbol, offset, count);
	if (error != cudaSuccess || count == 0)
		return error;
	if (!dst)
		return rt_fail(cudaErrorInvalidValue);
	memmove(dst, (const char *)symbol + offset, count);
	return cudaSuccess;
}

RT_EXPORT cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
					      size_t offset, enum cudaMemcpyKind kind,
					      cudaStream_t stream)
{
	if (rt_stream_capturing(stream))
		return cudaSuccess;
	return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

RT_EXPORT cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
						size_t offset, enum cudaMemcpyKind kind,
						cudaStream_t stream)
{
	if (rt_stream_capturing(stream))
		return cudaSuccess;
	return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
