/* Stand-in driver: copies and sets, of one row, of several (2-D, 3-D), and
 * between devices; and peer access. Linear memory's
 * bytes really move (device memory is the process's own here); an array
 * keeps none, so a copy into or out of one is checked and nothing more.
 * Work is never queued: the stream variants run at once, and on a
 * capturing stream are recorded nowhere. */
#include <string.h>

#include "sim.h"

SIM_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (bytes == 0)
		return CUDA_SUCCESS;
	if (!dst || !src)
		return CUDA_ERROR_INVALID_VALUE;
	memmove((void *)dst, (const void *)src, bytes);
	return CUDA_SUCCESS;
}

/* Work on a capturing stream is recorded nowhere: it would run only when
 * the graph is launched, and the simulated graph runs memory nodes only. */
SIM_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream)
{
	return sim_stream_capture(stream) ? CUDA_SUCCESS : cuMemcpy(dst, src, bytes);
}

SIM_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes)
{
	CUresult rc = sim_check_device_range(dst, bytes);
	if (rc != CUDA_SUCCESS)
		return rc;
	return cuMemcpy(dst, (CUdeviceptr)src, bytes);
}

SIM_EXPORT CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes)
{
	CUresult rc = sim_check_device_range(src, bytes);
	if (rc != CUDA_SUCCESS)
		return rc;
	return cuMemcpy((CUdeviceptr)dst, src, bytes);
}

SIM_EXPORT CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
	CUresult rc = sim_check_device_range(src, bytes);
	if (rc == CUDA_SUCCESS)
		rc = sim_check_device_range(dst, bytes);
	if (rc != CUDA_SUCCESS)
		return rc;
	return cuMemcpy(dst, src, bytes);
}

SIM_EXPORT CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes,
				      CUstream stream)
{
	return sim_stream_capture(stream) ? CUDA_SUCCESS : cuMemcpyHtoD(dst, src, bytes);
}

SIM_EXPORT CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream stream)
{
	return sim_stream_capture(stream) ? CUDA_SUCCESS : cuMemcpyDtoH(dst, src, bytes);
}

SIM_EXPORT CUresult cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t count)
{
	CUresult rc = sim_check_device_range(dst, count);
	if (rc != CUDA_SUCCESS)
		return rc;
	memset((void *)dst, value, count);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t count)
{
	if (count > SIZE_MAX / 4)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult rc = sim_check_device_range(dst, count * 4);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (dst % 4)
		return CUDA_ERROR_INVALID_VALUE;
	unsigned int *words = (unsigned int *)dst;
	for (size_t i = 0; i < count; i++)
		words[i] = value;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count,
				    CUstream stream)
{
	return sim_stream_capture(stream) ? CUDA_SUCCESS : cuMemsetD8(dst, value, count);
}

SIM_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count,
				     CUstream stream)
{
	return sim_stream_capture(stream) ? CUDA_SUCCESS : cuMemsetD32(dst, value, count);
}

/* One side of a copy, as the driver's descriptors give it. */
struct side {
	CUmemorytype type;
	char *linear; /* host or device address */
	CUarray array;
	size_t x_bytes, y, z, pitch, height;
};

static CUresult array_holds(CUarray array, size_t x_bytes, size_t y, size_t z, size_t width,
			    size_t height, size_t depth)
{
	CUDA_ARRAY3D_DESCRIPTOR desc;
	CUresult rc = cuArray3DGetDescriptor(&desc, array);
	if (rc != CUDA_SUCCESS)
		return rc;
	size_t row = desc.Width * sim_format_bytes(desc.Format) * desc.NumChannels;
	size_t rows = desc.Height ? desc.Height : 1, layers = desc.Depth ? desc.Depth : 1;
	bool inside = x_bytes <= row && width <= row - x_bytes && y <= rows && height <= rows - y &&
		      z <= layers && depth <= layers - z;
	return inside ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The side's first byte, or NULL for an array; checks the span it covers. */
static CUresult check_side(const struct side *side, size_t width, size_t height, size_t depth,
			   char **first)
{
	*first = NULL;
	if (side->type == CU_MEMORYTYPE_ARRAY)
		return array_holds(side->array, side->x_bytes, side->y, side->z, width, height,
				   depth);
	if (side->type != CU_MEMORYTYPE_HOST && side->type != CU_MEMORYTYPE_DEVICE &&
	    side->type != CU_MEMORYTYPE_UNIFIED)
		return CUDA_ERROR_INVALID_VALUE;
	if (!side->linear || side->pitch < side->x_bytes + width)
		return CUDA_ERROR_INVALID_VALUE;
	size_t layer = side->pitch * side->height;
	*first = side->linear + side->z * layer + side->y * side->pitch + side->x_bytes;
	if (side->type == CU_MEMORYTYPE_HOST)
		return CUDA_SUCCESS;
	size_t span = (depth - 1) * layer + (height - 1) * side->pitch + width;
	return sim_check_device_range((CUdeviceptr)*first, span);
}

static CUresult copy_box(const struct side *src, const struct side *dst, size_t width,
			 size_t height, size_t depth)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS || width == 0 || height == 0 || depth == 0)
		return rc;
	char *from, *to;
	rc = check_side(src, width, height, depth, &from);
	if (rc == CUDA_SUCCESS)
		rc = check_side(dst, width, height, depth, &to);
	if (rc != CUDA_SUCCESS || !from || !to)
		return rc;
	for (size_t z = 0; z < depth; z++)
		for (size_t y = 0; y < height; y++)
			memmove(to + z * dst->pitch * dst->height + y * dst->pitch,
				from + z * src->pitch * src->height + y * src->pitch, width);
	return CUDA_SUCCESS;
}

#define SIDE_2D(p, which)                                                                     \
	((struct side){p->which##MemoryType,                                                  \
		       p->which##MemoryType == CU_MEMORYTYPE_HOST ? (char *)p->which##Host    \
								  : (char *)p->which##Device, \
		       p->which##Array, p->which##XInBytes, p->which##Y, 0, p->which##Pitch, 0})

#define SIDE_3D(p, which)                                                                     \
	((struct side){p->which##MemoryType,                                                  \
		       p->which##MemoryType == CU_MEMORYTYPE_HOST ? (char *)p->which##Host    \
								  : (char *)p->which##Device, \
		       p->which##Array, p->which##XInBytes, p->which##Y, p->which##Z,         \
		       p->which##Pitch, p->which##Height})

SIM_EXPORT CUresult cuMemcpy2D(const CUDA_MEMCPY2D *copy)
{
	if (!copy)
		return CUDA_ERROR_INVALID_VALUE;
	struct side src = SIDE_2D(copy, src), dst = SIDE_2D(copy, dst);
	return copy_box(&src, &dst, copy->WidthInBytes, copy->Height, 1);
}

SIM_EXPORT CUresult cuMemcpy2DUnaligned(const CUDA_MEMCPY2D *copy)
{
	return cuMemcpy2D(copy);
}

SIM_EXPORT CUresult cuMemcpy2DAsync(const CUDA_MEMCPY2D *copy, CUstream stream)
{
	return sim_stream_capture(stream) ? CUDA_SUCCESS : cuMemcpy2D(copy);
}

SIM_EXPORT CUresult cuMemcpy3D(const CUDA_MEMCPY3D *copy)
{
	if (!copy)
		return CUDA_ERROR_INVALID_VALUE;
	struct side src = SIDE_3D(copy, src), dst = SIDE_3D(copy, dst);
	return copy_box(&src, &dst, copy->WidthInBytes, copy->Height, copy->Depth);
}

SIM_EXPORT CUresult cuMemcpy3DAsync(const CUDA_MEMCPY3D *copy, CUstream stream)
{
	return sim_stream_capture(stream) ? CUDA_SUCCESS : cuMemcpy3D(copy);
}

/* A set of rows of width elements of element bytes, pitch apart. */
static CUresult set_rows(CUdeviceptr dst, size_t pitch, unsigned value, size_t element,
			 size_t width, size_t height)
{
	if (width == 0 || height == 0)
		return sim_check_init();
	if (dst % element || width > SIZE_MAX / element / 2 || pitch < width * element)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult rc = sim_check_device_range(dst, (height - 1) * pitch + width * element);
	if (rc != CUDA_SUCCESS)
		return rc;
	unsigned char byte = (unsigned char)value;
	unsigned short half = (unsigned short)value;
	const void *pattern = element == 1   ? (const void *)&byte
			      : element == 2 ? (const void *)&half
					     : (const void *)&value;
	for (size_t y = 0; y < height; y++)
		for (size_t x = 0; x < width; x++)
			memcpy((char *)dst + y * pitch + x * element, pattern, element);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemsetD16(CUdeviceptr dst, unsigned short value, size_t count)
{
	return set_rows(dst, count * 2, value, 2, count, 1);
}

SIM_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count,
				     CUstream stream)
{
	return sim_stream_capture(stream) ? CUDA_SUCCESS : cuMemsetD16(dst, value, count);
}

SIM_EXPORT CUresult cuMemsetD2D8(CUdeviceptr dst, size_t pitch, unsigned char value, size_t width,
				 size_t height)
{
	return set_rows(dst, pitch, value, 1, width, height);
}

SIM_EXPORT CUresult cuMemsetD2D16(CUdeviceptr dst, size_t pitch, unsigned short value, size_t width,
				  size_t height)
{
	return set_rows(dst, pitch, value, 2, width, height);
}

SIM_EXPORT CUresult cuMemsetD2D32(CUdeviceptr dst, size_t pitch, unsigned int value, size_t width,
				  size_t height)
{
	return set_rows(dst, pitch, value, 4, width, height);
}

SIM_EXPORT CUresult cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch, unsigned char value,
				      size_t width, size_t height, CUstream stream)
{
	return sim_stream_capture(stream) ? CUDA_SUCCESS
					  : cuMemsetD2D8(dst, pitch, value, width, height);
}

SIM_EXPORT CUresult cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch, unsigned short value,
				       size_t width, size_t height, CUstream stream)
{
	return sim_stream_capture(stream) ? CUDA_SUCCESS
					  : cuMemsetD2D16(dst, pitch, value, width, height);
}

SIM_EXPORT CUresult cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned int value,
				       size_t width, size_t height, CUstream stream)
{
	return sim_stream_capture(stream) ? CUDA_SUCCESS
					  : cuMemsetD2D32(dst, pitch, value, width, height);
}

/* Copies between devices: every device's memory is this process's own. */
SIM_EXPORT CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src,
				 CUcontext src_context, size_t bytes)
{
	if (!dst_context || !src_context)
		return CUDA_ERROR_INVALID_CONTEXT;
	return cuMemcpyDtoD(dst, src, bytes);
}

SIM_EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src,
				      CUcontext src_context, size_t bytes, CUstream stream)
{
	return sim_stream_capture(stream) ? CUDA_SUCCESS
					  : cuMemcpyPeer(dst, dst_context, src, src_context, bytes);
}

/* Every two distinct devices reach each other (NVLink, as on an HGX board);
 * a context enables its access to another device's once. */
static unsigned long long peer_enabled[SIM_MAX_DEVICES]; /* bit p of [d]: d reaches p */

SIM_EXPORT CUresult cuDeviceCanAccessPeer(int *can, CUdevice device, CUdevice peer)
{
	CUresult rc = sim_check_device(device);
	if (rc == CUDA_SUCCESS)
		rc = sim_check_device(peer);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!can)
		return CUDA_ERROR_INVALID_VALUE;
	*can = device != peer;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attribute,
					    CUdevice device, CUdevice peer)
{
	int can;
	CUresult rc = cuDeviceCanAccessPeer(&can, device, peer);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!value || device == peer)
		return CUDA_ERROR_INVALID_DEVICE;
	switch (attribute) {
	case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK: *value = 0; break;
	case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
	case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
	case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED: *value = 1; break;
	/* NVLink carries every atomic, not only some. */
	case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED: *value = 0; break;
	default: return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

static CUresult set_peer_access(CUcontext peer_context, bool enable)
{
	int device, peer;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!peer_context || cuCtxGetDevice_v2(&peer, peer_context) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (peer == device)
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&sim_lock);
	bool was = peer_enabled[device] & (1ull << peer);
	if (was != enable)
		peer_enabled[device] ^= 1ull << peer;
	pthread_mutex_unlock(&sim_lock);
	if (was == enable)
		return enable ? CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
			      : CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peer_context, unsigned int flags)
{
	return flags ? CUDA_ERROR_INVALID_VALUE : set_peer_access(peer_context, true);
}

SIM_EXPORT CUresult cuCtxDisablePeerAccess(CUcontext peer_context)
{
	return set_peer_access(peer_context, false);
}
