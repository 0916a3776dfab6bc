/* The driver's allocation and free entry points: what each observer
 * records, and the hook wrapper that forwards the call between its halves.
 * A free is recorded before it is forwarded, an allocation only after it
 * succeeded. Return codes, output values and errno pass through untouched. */
#include "driver_hooks.h"
#include "driver_query.h"
#include "driver_wrappers.h"
#include "graphs.h"
#include "observer.h"
#include "pools.h"

/* Returns the device a recorded allocation went to, else VT_UNKNOWN_DEVICE. */
static int record_alloc(const struct vt_observer *self, CUresult rc, enum vt_kind kind,
			uint64_t address, uint64_t bytes)
{
	if (rc == CUDA_SUCCESS)
		return vt_emit_alloc(kind, address, bytes, self->name);
	vt_emit_failure(kind, bytes, (int)rc, self->name);
	return VT_UNKNOWN_DEVICE;
}

/* Freeing address 0 is not a free. */
static void record_free(const struct vt_observer *self, uint64_t address, enum vt_kind family)
{
	if (address)
		vt_emit_free(address, family, self->name);
}

static void after_mem_alloc(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemAlloc_v2_params *p = args;
	record_alloc(self, rc, VT_KIND_DEVICE, rc == CUDA_SUCCESS ? *p->dptr : 0, p->bytesize);
}
VT_OBSERVER(cuMemAlloc_v2, NULL, after_mem_alloc);

VT_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes)
{
	VT_REAL("cuMemAlloc_v2", VT_LEGACY_STREAM, CUresult(*)(CUdeviceptr *, size_t));
	cuMemAlloc_v2_params params = {dptr, bytes};
	VT_RETURN_OBSERVED(cuMemAlloc_v2, &params, real(dptr, bytes));
}

/* The pitch is known only on success; a failure records the rows
 * requested, unpadded. */
static void after_mem_alloc_pitch(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemAllocPitch_v2_params *p = args;
	bool ok = rc == CUDA_SUCCESS;
	uint64_t row = ok ? *p->pPitch : p->WidthInBytes;
	record_alloc(self, rc, VT_KIND_DEVICE, ok ? *p->dptr : 0, row * p->Height);
}
VT_OBSERVER(cuMemAllocPitch_v2, NULL, after_mem_alloc_pitch);

VT_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
				      unsigned int element_bytes)
{
	VT_REAL("cuMemAllocPitch_v2", VT_LEGACY_STREAM,
		CUresult(*)(CUdeviceptr *, size_t *, size_t, size_t, unsigned int));
	cuMemAllocPitch_v2_params params = {dptr, pitch, width, height, element_bytes};
	VT_RETURN_OBSERVED(cuMemAllocPitch_v2, &params,
			   real(dptr, pitch, width, height, element_bytes));
}

static void after_mem_alloc_managed(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemAllocManaged_params *p = args;
	record_alloc(self, rc, VT_KIND_MANAGED, rc == CUDA_SUCCESS ? *p->dptr : 0, p->bytesize);
}
VT_OBSERVER(cuMemAllocManaged, NULL, after_mem_alloc_managed);

VT_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned int flags)
{
	VT_REAL("cuMemAllocManaged", VT_LEGACY_STREAM,
		CUresult(*)(CUdeviceptr *, size_t, unsigned int));
	cuMemAllocManaged_params params = {dptr, bytes, flags};
	VT_RETURN_OBSERVED(cuMemAllocManaged, &params, real(dptr, bytes, flags));
}

static void before_mem_free(const struct vt_observer *self, const void *args)
{
	const cuMemFree_v2_params *p = args;
	record_free(self, p->dptr, VT_KIND_DEVICE);
}
VT_OBSERVER(cuMemFree_v2, before_mem_free, NULL);

VT_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	VT_REAL("cuMemFree_v2", VT_LEGACY_STREAM, CUresult(*)(CUdeviceptr));
	cuMemFree_v2_params params = {dptr};
	VT_RETURN_OBSERVED(cuMemFree_v2, &params, real(dptr));
}

static void after_mem_host_alloc(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemHostAlloc_params *p = args;
	record_alloc(self, rc, VT_KIND_PINNED_HOST, rc == CUDA_SUCCESS ? (uintptr_t)*p->pp : 0,
		     p->bytesize);
}
VT_OBSERVER(cuMemHostAlloc, NULL, after_mem_host_alloc);

VT_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags)
{
	VT_REAL("cuMemHostAlloc", VT_LEGACY_STREAM, CUresult(*)(void **, size_t, unsigned int));
	cuMemHostAlloc_params params = {pp, bytes, flags};
	VT_RETURN_OBSERVED(cuMemHostAlloc, &params, real(pp, bytes, flags));
}

/* cuMemAllocHost_v2's parameters are cuMemHostAlloc's without the flags. */
VT_OBSERVER(cuMemAllocHost_v2, NULL, after_mem_host_alloc);

VT_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytes)
{
	VT_REAL("cuMemAllocHost_v2", VT_LEGACY_STREAM, CUresult(*)(void **, size_t));
	cuMemAllocHost_v2_params params = {pp, bytes};
	VT_RETURN_OBSERVED(cuMemAllocHost_v2, &params, real(pp, bytes));
}

static void before_mem_free_host(const struct vt_observer *self, const void *args)
{
	const cuMemFreeHost_params *p = args;
	record_free(self, (uintptr_t)p->p, VT_KIND_PINNED_HOST);
}
VT_OBSERVER(cuMemFreeHost, before_mem_free_host, NULL);

VT_EXPORT CUresult cuMemFreeHost(void *p)
{
	VT_REAL("cuMemFreeHost", VT_LEGACY_STREAM, CUresult(*)(void *));
	cuMemFreeHost_params params = {p};
	VT_RETURN_OBSERVED(cuMemFreeHost, &params, real(p));
}

/* Captured into a graph, a stream-ordered allocation is an allocation
 * node: graph memory of its device, which its launches take. */
static bool captured(CUresult rc, void *stream, bool per_thread, int device)
{
	if (rc != CUDA_SUCCESS || !vt_graphs_capturing(stream, per_thread))
		return false;
	vt_graphs_note_device(device == VT_UNKNOWN_DEVICE ? vt_driver_current_device() : device);
	return true;
}

/* The device's current pool served it: noted, read later. */
static void record_alloc_async(const struct vt_observer *self, const cuMemAllocAsync_params *p,
			       CUresult rc, bool per_thread)
{
	if (captured(rc, p->hStream, per_thread, VT_UNKNOWN_DEVICE))
		return;
	vt_pools_note_current(record_alloc(self, rc, VT_KIND_ASYNC,
					   rc == CUDA_SUCCESS ? *p->dptr : 0, p->bytesize));
}

static void after_mem_alloc_async(const struct vt_observer *self, const void *args, CUresult rc)
{
	record_alloc_async(self, args, rc, false);
}

static void after_mem_alloc_async_ptsz(const struct vt_observer *self, const void *args,
				       CUresult rc)
{
	record_alloc_async(self, args, rc, true);
}
VT_OBSERVER(cuMemAllocAsync, NULL, after_mem_alloc_async);
VT_OBSERVER(cuMemAllocAsync_ptsz, NULL, after_mem_alloc_async_ptsz);

VT_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
	VT_REAL("cuMemAllocAsync", VT_LEGACY_STREAM, CUresult(*)(CUdeviceptr *, size_t, CUstream));
	cuMemAllocAsync_params params = {dptr, bytes, stream};
	VT_RETURN_OBSERVED(cuMemAllocAsync, &params, real(dptr, bytes, stream));
}

VT_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
	VT_REAL("cuMemAllocAsync", VT_PER_THREAD_STREAM,
		CUresult(*)(CUdeviceptr *, size_t, CUstream));
	cuMemAllocAsync_ptsz_params params = {dptr, bytes, stream};
	VT_RETURN_OBSERVED(cuMemAllocAsync_ptsz, &params, real(dptr, bytes, stream));
}

/* The memory is on the pool's device, whichever device is current. */
static void record_alloc_from_pool(const struct vt_observer *self,
				   const cuMemAllocFromPoolAsync_params *p, CUresult rc,
				   bool per_thread)
{
	int device = vt_pools_device(p->pool);
	if (captured(rc, p->hStream, per_thread, device))
		return;
	if (rc != CUDA_SUCCESS)
		vt_emit_failure(VT_KIND_ASYNC, p->bytesize, (int)rc, self->name);
	else if (device != VT_UNKNOWN_DEVICE)
		vt_emit_alloc_on(VT_KIND_ASYNC, device, *p->dptr, p->bytesize, self->name);
	else /* a pool first seen here is taken to be on this allocation's device */
		vt_pools_note(p->pool,
			      vt_emit_alloc(VT_KIND_ASYNC, *p->dptr, p->bytesize, self->name));
}

static void after_mem_alloc_from_pool(const struct vt_observer *self, const void *args, CUresult rc)
{
	record_alloc_from_pool(self, args, rc, false);
}

static void after_mem_alloc_from_pool_ptsz(const struct vt_observer *self, const void *args,
					   CUresult rc)
{
	record_alloc_from_pool(self, args, rc, true);
}
VT_OBSERVER(cuMemAllocFromPoolAsync, NULL, after_mem_alloc_from_pool);
VT_OBSERVER(cuMemAllocFromPoolAsync_ptsz, NULL, after_mem_alloc_from_pool_ptsz);

VT_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
					   CUstream stream)
{
	VT_REAL("cuMemAllocFromPoolAsync", VT_LEGACY_STREAM,
		CUresult(*)(CUdeviceptr *, size_t, CUmemoryPool, CUstream));
	cuMemAllocFromPoolAsync_params params = {dptr, bytes, pool, stream};
	VT_RETURN_OBSERVED(cuMemAllocFromPoolAsync, &params, real(dptr, bytes, pool, stream));
}

VT_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
						CUstream stream)
{
	VT_REAL("cuMemAllocFromPoolAsync", VT_PER_THREAD_STREAM,
		CUresult(*)(CUdeviceptr *, size_t, CUmemoryPool, CUstream));
	cuMemAllocFromPoolAsync_ptsz_params params = {dptr, bytes, pool, stream};
	VT_RETURN_OBSERVED(cuMemAllocFromPoolAsync_ptsz, &params, real(dptr, bytes, pool, stream));
}

/* A captured free is a free node: it frees graph memory when launched. */
static void before_mem_free_async(const struct vt_observer *self, const void *args)
{
	const cuMemFreeAsync_params *p = args;
	if (!vt_graphs_capturing(p->hStream, false))
		record_free(self, p->dptr, VT_KIND_DEVICE);
}

static void before_mem_free_async_ptsz(const struct vt_observer *self, const void *args)
{
	const cuMemFreeAsync_ptsz_params *p = args;
	if (!vt_graphs_capturing(p->hStream, true))
		record_free(self, p->dptr, VT_KIND_DEVICE);
}
VT_OBSERVER(cuMemFreeAsync, before_mem_free_async, NULL);
VT_OBSERVER(cuMemFreeAsync_ptsz, before_mem_free_async_ptsz, NULL);

VT_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream)
{
	VT_REAL("cuMemFreeAsync", VT_LEGACY_STREAM, CUresult(*)(CUdeviceptr, CUstream));
	cuMemFreeAsync_params params = {dptr, stream};
	VT_RETURN_OBSERVED(cuMemFreeAsync, &params, real(dptr, stream));
}

VT_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream)
{
	VT_REAL("cuMemFreeAsync", VT_PER_THREAD_STREAM, CUresult(*)(CUdeviceptr, CUstream));
	cuMemFreeAsync_ptsz_params params = {dptr, stream};
	VT_RETURN_OBSERVED(cuMemFreeAsync_ptsz, &params, real(dptr, stream));
}

/* An import is another process's memory: shown as ipc_import, sized by the
 * driver, never counted as this process's own. Both ABIs share a layout. */
static void after_ipc_open(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuIpcOpenMemHandle_v2_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_IPC_IMPORT, *p->pdptr, vt_driver_allocation_size(*p->pdptr),
			      self->name);
}
VT_OBSERVER(cuIpcOpenMemHandle_v2, NULL, after_ipc_open);
VT_OBSERVER(cuIpcOpenMemHandle, NULL, after_ipc_open);

VT_EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *dptr, CUipcMemHandle handle,
					 unsigned int flags)
{
	VT_REAL("cuIpcOpenMemHandle_v2", VT_LEGACY_STREAM,
		CUresult(*)(CUdeviceptr *, CUipcMemHandle, unsigned int));
	cuIpcOpenMemHandle_v2_params params = {dptr, handle, flags};
	VT_RETURN_OBSERVED(cuIpcOpenMemHandle_v2, &params, real(dptr, handle, flags));
}

VT_EXPORT CUresult cuIpcOpenMemHandle(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned int flags)
{
	VT_REAL("cuIpcOpenMemHandle", VT_LEGACY_STREAM,
		CUresult(*)(CUdeviceptr *, CUipcMemHandle, unsigned int));
	cuIpcOpenMemHandle_params params = {dptr, handle, flags};
	VT_RETURN_OBSERVED(cuIpcOpenMemHandle, &params, real(dptr, handle, flags));
}

/* Recorded after it succeeded, like an unregistration. */
static void after_ipc_close(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuIpcCloseMemHandle_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_free(p->dptr, VT_KIND_IPC_IMPORT, self->name);
}
VT_OBSERVER(cuIpcCloseMemHandle, NULL, after_ipc_close);

VT_EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
	VT_REAL("cuIpcCloseMemHandle", VT_LEGACY_STREAM, CUresult(*)(CUdeviceptr));
	cuIpcCloseMemHandle_params params = {dptr};
	VT_RETURN_OBSERVED(cuIpcCloseMemHandle, &params, real(dptr));
}

/* A buffer of memory Vulkan, OpenGL or another process allocated: shown as
 * external, never counted as this program's; cuMemFree ends it. */
static void after_external_buffer(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuExternalMemoryGetMappedBuffer_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_EXTERNAL, *p->devPtr, p->bufferDesc->size, self->name);
}
VT_OBSERVER(cuExternalMemoryGetMappedBuffer, NULL, after_external_buffer);

VT_EXPORT CUresult cuExternalMemoryGetMappedBuffer(CUdeviceptr *dptr, CUexternalMemory external,
						   const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *desc)
{
	VT_REAL("cuExternalMemoryGetMappedBuffer", VT_LEGACY_STREAM,
		CUresult(*)(CUdeviceptr *, CUexternalMemory,
			    const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *));
	cuExternalMemoryGetMappedBuffer_params params = {dptr, external, desc};
	VT_RETURN_OBSERVED(cuExternalMemoryGetMappedBuffer, &params, real(dptr, external, desc));
}

/* Registration pins pages the program already has: shown as
 * host_registered, never counted as new memory. */
static void after_host_register(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemHostRegister_v2_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_HOST_REGISTERED, (uintptr_t)p->p, p->bytesize, self->name);
}
VT_OBSERVER(cuMemHostRegister_v2, NULL, after_host_register);

VT_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned int flags)
{
	VT_REAL("cuMemHostRegister_v2", VT_LEGACY_STREAM,
		CUresult(*)(void *, size_t, unsigned int));
	cuMemHostRegister_v2_params params = {p, bytes, flags};
	VT_RETURN_OBSERVED(cuMemHostRegister_v2, &params, real(p, bytes, flags));
}

/* Recorded after it succeeded: a pointer CUDA refuses to unregister (a
 * cuMemHostAlloc one) stays what it was. */
static void after_host_unregister(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemHostUnregister_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_free((uintptr_t)p->p, VT_KIND_HOST_REGISTERED, self->name);
}
VT_OBSERVER(cuMemHostUnregister, NULL, after_host_unregister);

VT_EXPORT CUresult cuMemHostUnregister(void *p)
{
	VT_REAL("cuMemHostUnregister", VT_LEGACY_STREAM, CUresult(*)(void *));
	cuMemHostUnregister_params params = {p};
	VT_RETURN_OBSERVED(cuMemHostUnregister, &params, real(p));
}
