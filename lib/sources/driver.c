/* Wrappers of the driver's allocation and free entry points. Each calls the
 * real function, then records what it did: a free before it is forwarded (so
 * no reuse of the address can slip in between), an allocation only after it
 * succeeded. Return codes, output values and errno pass through untouched. */
#include <errno.h>

#include "call.h"
#include "driver_hooks.h"
#include "driver_query.h"
#include "driver_wrappers.h"
#include "pools.h"

/* Returns the device a recorded allocation went to, else VT_UNKNOWN_DEVICE. */
static int after_alloc(bool outer, CUresult rc, enum vt_kind kind, uint64_t address, uint64_t bytes,
		       const char *driver_api)
{
	if (!outer)
		return VT_UNKNOWN_DEVICE;
	if (rc == CUDA_SUCCESS)
		return vt_emit_alloc(kind, address, bytes, driver_api);
	vt_emit_failure(kind, bytes, (int)rc, driver_api);
	return VT_UNKNOWN_DEVICE;
}

typedef CUresult (*mem_alloc_fn)(CUdeviceptr *, size_t);

static CUresult device_alloc(mem_alloc_fn real, CUdeviceptr *dptr, size_t bytes, enum vt_kind kind,
			     const char *driver_api)
{
	bool outer = vt_driver_enter();
	CUresult rc = real(dptr, bytes);
	int saved_errno = errno;
	after_alloc(outer, rc, kind, rc == CUDA_SUCCESS ? *dptr : 0, bytes, driver_api);
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

VT_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes)
{
	VT_REAL("cuMemAlloc_v2", VT_LEGACY_STREAM, mem_alloc_fn);
	return device_alloc(real, dptr, bytes, VT_KIND_DEVICE, "cuMemAlloc_v2");
}

typedef CUresult (*mem_alloc_pitch_fn)(CUdeviceptr *, size_t *, size_t, size_t, unsigned int);

VT_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
				      unsigned int element_bytes)
{
	VT_REAL("cuMemAllocPitch_v2", VT_LEGACY_STREAM, mem_alloc_pitch_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(dptr, pitch, width, height, element_bytes);
	int saved_errno = errno;
	/* The pitch is known only on success; a failure records the rows
	 * requested, unpadded. */
	uint64_t bytes = rc == CUDA_SUCCESS ? (uint64_t)*pitch * height : (uint64_t)width * height;
	after_alloc(outer, rc, VT_KIND_DEVICE, rc == CUDA_SUCCESS ? *dptr : 0, bytes,
		    "cuMemAllocPitch_v2");
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*mem_alloc_managed_fn)(CUdeviceptr *, size_t, unsigned int);

VT_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned int flags)
{
	VT_REAL("cuMemAllocManaged", VT_LEGACY_STREAM, mem_alloc_managed_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(dptr, bytes, flags);
	int saved_errno = errno;
	after_alloc(outer, rc, VT_KIND_MANAGED, rc == CUDA_SUCCESS ? *dptr : 0, bytes,
		    "cuMemAllocManaged");
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*mem_free_fn)(CUdeviceptr);

/* Frees are recorded before they are forwarded; freeing address 0 is not a
 * free. */
static void before_free(bool outer, uint64_t address, enum vt_kind family, const char *driver_api)
{
	int saved_errno = errno;
	if (outer && address)
		vt_emit_free(address, family, driver_api);
	errno = saved_errno;
}

static CUresult device_free(mem_free_fn real, CUdeviceptr dptr, const char *driver_api)
{
	bool outer = vt_driver_enter();
	before_free(outer, dptr, VT_KIND_DEVICE, driver_api);
	CUresult rc = real(dptr);
	vt_driver_leave();
	return rc;
}

VT_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	VT_REAL("cuMemFree_v2", VT_LEGACY_STREAM, mem_free_fn);
	return device_free(real, dptr, "cuMemFree_v2");
}

typedef CUresult (*mem_host_alloc_fn)(void **, size_t, unsigned int);

VT_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags)
{
	VT_REAL("cuMemHostAlloc", VT_LEGACY_STREAM, mem_host_alloc_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(pp, bytes, flags);
	int saved_errno = errno;
	after_alloc(outer, rc, VT_KIND_PINNED_HOST, rc == CUDA_SUCCESS ? (uintptr_t)*pp : 0, bytes,
		    "cuMemHostAlloc");
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*mem_alloc_host_fn)(void **, size_t);

VT_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytes)
{
	VT_REAL("cuMemAllocHost_v2", VT_LEGACY_STREAM, mem_alloc_host_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(pp, bytes);
	int saved_errno = errno;
	after_alloc(outer, rc, VT_KIND_PINNED_HOST, rc == CUDA_SUCCESS ? (uintptr_t)*pp : 0, bytes,
		    "cuMemAllocHost_v2");
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*mem_free_host_fn)(void *);

VT_EXPORT CUresult cuMemFreeHost(void *p)
{
	VT_REAL("cuMemFreeHost", VT_LEGACY_STREAM, mem_free_host_fn);
	bool outer = vt_driver_enter();
	before_free(outer, (uintptr_t)p, VT_KIND_PINNED_HOST, "cuMemFreeHost");
	CUresult rc = real(p);
	vt_driver_leave();
	return rc;
}

typedef CUresult (*mem_alloc_async_fn)(CUdeviceptr *, size_t, CUstream);

static CUresult alloc_async(enum vt_stream_flavour flavour, CUdeviceptr *dptr, size_t bytes,
			    CUstream stream, const char *driver_api)
{
	VT_REAL("cuMemAllocAsync", flavour, mem_alloc_async_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(dptr, bytes, stream);
	int saved_errno = errno;
	vt_pools_note_current(after_alloc(outer, rc, VT_KIND_ASYNC, rc == CUDA_SUCCESS ? *dptr : 0,
					  bytes, driver_api));
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

VT_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
	return alloc_async(VT_LEGACY_STREAM, dptr, bytes, stream, "cuMemAllocAsync");
}

VT_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
	return alloc_async(VT_PER_THREAD_STREAM, dptr, bytes, stream, "cuMemAllocAsync_ptsz");
}

typedef CUresult (*mem_alloc_from_pool_fn)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);

static CUresult alloc_from_pool(enum vt_stream_flavour flavour, CUdeviceptr *dptr, size_t bytes,
				CUmemoryPool pool, CUstream stream, const char *driver_api)
{
	VT_REAL("cuMemAllocFromPoolAsync", flavour, mem_alloc_from_pool_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(dptr, bytes, pool, stream);
	int saved_errno = errno;
	vt_pools_note(pool, after_alloc(outer, rc, VT_KIND_ASYNC, rc == CUDA_SUCCESS ? *dptr : 0,
					bytes, driver_api));
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

VT_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
					   CUstream stream)
{
	return alloc_from_pool(VT_LEGACY_STREAM, dptr, bytes, pool, stream,
			       "cuMemAllocFromPoolAsync");
}

VT_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
						CUstream stream)
{
	return alloc_from_pool(VT_PER_THREAD_STREAM, dptr, bytes, pool, stream,
			       "cuMemAllocFromPoolAsync_ptsz");
}

typedef CUresult (*mem_free_async_fn)(CUdeviceptr, CUstream);

static CUresult free_async(enum vt_stream_flavour flavour, CUdeviceptr dptr, CUstream stream,
			   const char *driver_api)
{
	VT_REAL("cuMemFreeAsync", flavour, mem_free_async_fn);
	bool outer = vt_driver_enter();
	before_free(outer, dptr, VT_KIND_DEVICE, driver_api);
	CUresult rc = real(dptr, stream);
	vt_driver_leave();
	return rc;
}

VT_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream)
{
	return free_async(VT_LEGACY_STREAM, dptr, stream, "cuMemFreeAsync");
}

VT_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream)
{
	return free_async(VT_PER_THREAD_STREAM, dptr, stream, "cuMemFreeAsync_ptsz");
}

typedef CUresult (*ipc_open_fn)(CUdeviceptr *, CUipcMemHandle, unsigned int);

/* An import is another process's memory: shown as ipc_import, sized by
 * the driver, never counted as this process's own. */
static CUresult ipc_open(ipc_open_fn real, CUdeviceptr *dptr, CUipcMemHandle handle,
			 unsigned int flags, const char *driver_api)
{
	bool outer = vt_driver_enter();
	CUresult rc = real(dptr, handle, flags);
	int saved_errno = errno;
	if (outer && rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_IPC_IMPORT, *dptr, vt_driver_allocation_size(*dptr),
			      driver_api);
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

VT_EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *dptr, CUipcMemHandle handle,
					 unsigned int flags)
{
	VT_REAL("cuIpcOpenMemHandle_v2", VT_LEGACY_STREAM, ipc_open_fn);
	return ipc_open(real, dptr, handle, flags, "cuIpcOpenMemHandle_v2");
}

VT_EXPORT CUresult cuIpcOpenMemHandle(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned int flags)
{
	VT_REAL("cuIpcOpenMemHandle", VT_LEGACY_STREAM, ipc_open_fn);
	return ipc_open(real, dptr, handle, flags, "cuIpcOpenMemHandle");
}

typedef CUresult (*ipc_close_fn)(CUdeviceptr);

/* Recorded after it succeeded, like an unregistration. */
VT_EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
	VT_REAL("cuIpcCloseMemHandle", VT_LEGACY_STREAM, ipc_close_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(dptr);
	int saved_errno = errno;
	if (outer && rc == CUDA_SUCCESS)
		vt_emit_free(dptr, VT_KIND_IPC_IMPORT, "cuIpcCloseMemHandle");
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*external_buffer_fn)(CUdeviceptr *, CUexternalMemory,
				       const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *);

/* A buffer of memory Vulkan, OpenGL or another process allocated: shown as
 * external, never counted as this program's; cuMemFree ends it. */
VT_EXPORT CUresult cuExternalMemoryGetMappedBuffer(CUdeviceptr *dptr, CUexternalMemory external,
						   const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *desc)
{
	VT_REAL("cuExternalMemoryGetMappedBuffer", VT_LEGACY_STREAM, external_buffer_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(dptr, external, desc);
	int saved_errno = errno;
	if (outer && rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_EXTERNAL, *dptr, desc->size,
			      "cuExternalMemoryGetMappedBuffer");
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*mem_host_register_fn)(void *, size_t, unsigned int);

/* Registration pins pages the program already has: shown as
 * host_registered, never counted as new memory. */
VT_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned int flags)
{
	VT_REAL("cuMemHostRegister_v2", VT_LEGACY_STREAM, mem_host_register_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(p, bytes, flags);
	int saved_errno = errno;
	if (outer && rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_HOST_REGISTERED, (uintptr_t)p, bytes, "cuMemHostRegister_v2");
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}

typedef CUresult (*mem_host_unregister_fn)(void *);

/* Recorded after it succeeded: a pointer CUDA refuses to unregister (a
 * cuMemHostAlloc one) stays what it was. */
VT_EXPORT CUresult cuMemHostUnregister(void *p)
{
	VT_REAL("cuMemHostUnregister", VT_LEGACY_STREAM, mem_host_unregister_fn);
	bool outer = vt_driver_enter();
	CUresult rc = real(p);
	int saved_errno = errno;
	if (outer && rc == CUDA_SUCCESS)
		vt_emit_free((uintptr_t)p, VT_KIND_HOST_REGISTERED, "cuMemHostUnregister");
	vt_driver_leave();
	errno = saved_errno;
	return rc;
}
