/* The driver's allocation and free entry points: what each observer
 * records (interpose/wrappers.c forwards the call between its halves). A
 * free is recorded before it is forwarded, an allocation only after it
 * succeeded. */
#include "../core/counter.h"
#include "driver_query.h"
#include "graphs.h"
#include "call.h"
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

/* Freeing address 0 is not a free. A graph allocation's address goes as
 * the kind graph: not in the ledger, it is graph memory freed, not an
 * unknown free. */
static void record_free(uint64_t address, enum vt_kind family)
{
	if (address)
		vt_emit_free(address, family == VT_KIND_DEVICE && vt_graphs_is_allocation(address)
					      ? VT_KIND_GRAPH
					      : family);
}

static void after_mem_alloc(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemAlloc_v2_params *p = args;
	record_alloc(self, rc, VT_KIND_DEVICE, rc == CUDA_SUCCESS ? *p->dptr : 0, p->bytesize);
}
VT_OBSERVER(cuMemAlloc_v2, NULL, after_mem_alloc);

/* The pitch is known only on success; a failure records the rows
 * requested, unpadded. */
static void after_mem_alloc_pitch(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemAllocPitch_v2_params *p = args;
	bool ok = rc == CUDA_SUCCESS;
	uint64_t row = ok ? *p->pPitch : p->WidthInBytes;
	record_alloc(self, rc, VT_KIND_DEVICE, ok ? *p->dptr : 0, vt_mul_bytes(row, p->Height));
}
VT_OBSERVER(cuMemAllocPitch_v2, NULL, after_mem_alloc_pitch);

static void after_mem_alloc_managed(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemAllocManaged_params *p = args;
	record_alloc(self, rc, VT_KIND_MANAGED, rc == CUDA_SUCCESS ? *p->dptr : 0, p->bytesize);
}
VT_OBSERVER(cuMemAllocManaged, NULL, after_mem_alloc_managed);

static void before_mem_free(const struct vt_observer *self, const void *args)
{
	const cuMemFree_v2_params *p = args;
	record_free(p->dptr, VT_KIND_DEVICE);
}
VT_OBSERVER(cuMemFree_v2, before_mem_free, NULL);

static void after_mem_host_alloc(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemHostAlloc_params *p = args;
	record_alloc(self, rc, VT_KIND_PINNED_HOST, rc == CUDA_SUCCESS ? (uintptr_t)*p->pp : 0,
		     p->bytesize);
}
VT_OBSERVER(cuMemHostAlloc, NULL, after_mem_host_alloc);

/* cuMemAllocHost_v2's parameters are cuMemHostAlloc's without the flags. */
VT_OBSERVER(cuMemAllocHost_v2, NULL, after_mem_host_alloc);

static void before_mem_free_host(const struct vt_observer *self, const void *args)
{
	const cuMemFreeHost_params *p = args;
	record_free((uintptr_t)p->p, VT_KIND_PINNED_HOST);
}
VT_OBSERVER(cuMemFreeHost, before_mem_free_host, NULL);

/* Captured into a graph, a stream-ordered allocation is an allocation
 * node: graph memory of its device, which its launches take. */
static bool captured(CUresult rc, void *stream, bool per_thread, int device, uint64_t address)
{
	if (rc != CUDA_SUCCESS || !vt_graphs_capturing(stream, per_thread))
		return false;
	int on = device != VT_UNKNOWN_DEVICE ? device : vt_driver_stream_device(stream);
	if (on == VT_UNKNOWN_DEVICE)
		on = vt_driver_current_device();
	vt_graphs_note_device(on);
	vt_graphs_note_allocation(on, address);
	return true;
}

/* The device the stream-ordered allocation at address went to: the
 * driver's word for the pointer (or, for a request that failed, the
 * stream's device), else the current device. A stream of another device
 * than the current one allocates from that device's pool, and a pool
 * first seen at an allocation may be any device's. */
static int async_device(CUresult rc, uint64_t address, void *stream)
{
	int device = rc == CUDA_SUCCESS ? vt_driver_pointer_device(address)
					: vt_driver_stream_device(stream);
	return device != VT_UNKNOWN_DEVICE ? device : vt_driver_current_device();
}

/* The current pool of the stream's device served it: noted, read later. */
static void record_alloc_async(const struct vt_observer *self, const cuMemAllocAsync_params *p,
			       CUresult rc, bool per_thread)
{
	if (captured(rc, p->hStream, per_thread, VT_UNKNOWN_DEVICE,
		     rc == CUDA_SUCCESS ? *p->dptr : 0))
		return;
	int device = async_device(rc, rc == CUDA_SUCCESS ? *p->dptr : 0, p->hStream);
	if (rc != CUDA_SUCCESS) {
		vt_emit_failure_on(VT_KIND_ASYNC, device, p->bytesize, (int)rc, self->name);
		return;
	}
	vt_emit_alloc_on(VT_KIND_ASYNC, device, *p->dptr, p->bytesize, self->name);
	vt_pools_note_current(device);
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

/* The memory is on the pool's device, whichever device is current. */
static void record_alloc_from_pool(const struct vt_observer *self,
				   const cuMemAllocFromPoolAsync_params *p, CUresult rc,
				   bool per_thread)
{
	int device = vt_pools_device(p->pool);
	if (captured(rc, p->hStream, per_thread, device, rc == CUDA_SUCCESS ? *p->dptr : 0))
		return;
	/* A pool first seen here (a device's default pool, say) is on the
	 * device its allocation went to, whichever device is current. */
	bool first_seen = device == VT_UNKNOWN_DEVICE;
	if (first_seen)
		device = async_device(rc, rc == CUDA_SUCCESS ? *p->dptr : 0, p->hStream);
	if (rc != CUDA_SUCCESS) {
		vt_emit_failure_on(VT_KIND_ASYNC, device, p->bytesize, (int)rc, self->name);
		return;
	}
	vt_emit_alloc_on(VT_KIND_ASYNC, device, *p->dptr, p->bytesize, self->name);
	if (first_seen)
		vt_pools_note(p->pool, device);
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

/* A captured free is a free node: it frees graph memory when launched. */
static void before_mem_free_async(const struct vt_observer *self, const void *args)
{
	const cuMemFreeAsync_params *p = args;
	if (!vt_graphs_capturing(p->hStream, false))
		record_free(p->dptr, VT_KIND_DEVICE);
}

static void before_mem_free_async_ptsz(const struct vt_observer *self, const void *args)
{
	const cuMemFreeAsync_ptsz_params *p = args;
	if (!vt_graphs_capturing(p->hStream, true))
		record_free(p->dptr, VT_KIND_DEVICE);
}
VT_OBSERVER(cuMemFreeAsync, before_mem_free_async, NULL);
VT_OBSERVER(cuMemFreeAsync_ptsz, before_mem_free_async_ptsz, NULL);

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

/* Recorded after it succeeded, like an unregistration. */
static void after_ipc_close(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuIpcCloseMemHandle_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_free(p->dptr, VT_KIND_IPC_IMPORT);
}
VT_OBSERVER(cuIpcCloseMemHandle, NULL, after_ipc_close);

/* A buffer of memory Vulkan, OpenGL or another process allocated: shown as
 * external, never counted as this program's; cuMemFree ends it. */
static void after_external_buffer(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuExternalMemoryGetMappedBuffer_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_EXTERNAL, *p->devPtr, p->bufferDesc->size, self->name);
}
VT_OBSERVER(cuExternalMemoryGetMappedBuffer, NULL, after_external_buffer);

/* Registration pins pages the program already has: shown as
 * host_registered, never counted as new memory. */
static void after_host_register(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemHostRegister_v2_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_alloc(VT_KIND_HOST_REGISTERED, (uintptr_t)p->p, p->bytesize, self->name);
}
VT_OBSERVER(cuMemHostRegister_v2, NULL, after_host_register);
/* CUDA 4.0's ABI, with the same parameters. */
VT_OBSERVER(cuMemHostRegister, NULL, after_host_register);

/* Recorded after it succeeded: a pointer CUDA refuses to unregister (a
 * cuMemHostAlloc one) stays what it was. */
static void after_host_unregister(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuMemHostUnregister_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_free((uintptr_t)p->p, VT_KIND_HOST_REGISTERED);
}
VT_OBSERVER(cuMemHostUnregister, NULL, after_host_unregister);
