/* Runtime API hooks. They do no accounting, which happens once, at the
 * driver: they only name the call, so that the cuMemAlloc_v2 beneath a
 * cudaMalloc is reported as cudaMalloc. Only a shared libcudart can be
 * interposed; a static one reports driver names. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>

#include "call.h"
#include "real.h"

static void *runtime_function(const char *name)
{
	void *found = vt_real_dlsym(RTLD_NEXT, name);
	if (!found) {
		void *runtime = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
		if (runtime) {
			found = vt_real_dlsym(runtime, name);
			dlclose(runtime);
		}
	}
	return found;
}

#define RUNTIME_HOOK(name, params, args)                                          \
	typedef cudaError_t(*name##_fn) params;                                   \
	VT_EXPORT cudaError_t name params;                                        \
	VT_EXPORT cudaError_t name params                                         \
	{                                                                         \
		static _Atomic(name##_fn) real;                                   \
		name##_fn fn = atomic_load_explicit(&real, memory_order_relaxed); \
		if (!fn) {                                                        \
			fn = (name##_fn)runtime_function(#name);                  \
			atomic_store_explicit(&real, fn, memory_order_relaxed);   \
		}                                                                 \
		if (!fn)                                                          \
			return cudaErrorInsufficientDriver;                       \
		const char *saved = vt_runtime_enter(#name);                      \
		cudaError_t rc = fn args;                                         \
		int saved_errno = errno;                                          \
		vt_runtime_leave(saved);                                          \
		errno = saved_errno;                                              \
		return rc;                                                        \
	}

RUNTIME_HOOK(cudaMalloc, (void **ptr, size_t size), (ptr, size))
RUNTIME_HOOK(cudaMallocPitch, (void **ptr, size_t *pitch, size_t width, size_t height),
	     (ptr, pitch, width, height))
RUNTIME_HOOK(cudaMalloc3D, (struct cudaPitchedPtr * pitched, struct cudaExtent extent),
	     (pitched, extent))
RUNTIME_HOOK(cudaMallocManaged, (void **ptr, size_t size, unsigned int flags), (ptr, size, flags))
RUNTIME_HOOK(cudaMallocHost, (void **ptr, size_t size), (ptr, size))
RUNTIME_HOOK(cudaHostAlloc, (void **ptr, size_t size, unsigned int flags), (ptr, size, flags))
RUNTIME_HOOK(cudaFree, (void *ptr), (ptr))
RUNTIME_HOOK(cudaFreeHost, (void *ptr), (ptr))
RUNTIME_HOOK(cudaHostRegister, (void *ptr, size_t size, unsigned int flags), (ptr, size, flags))
RUNTIME_HOOK(cudaHostUnregister, (void *ptr), (ptr))
RUNTIME_HOOK(cudaMallocAsync, (void **ptr, size_t size, cudaStream_t stream), (ptr, size, stream))
RUNTIME_HOOK(cudaMallocAsync_ptsz, (void **ptr, size_t size, cudaStream_t stream),
	     (ptr, size, stream))
RUNTIME_HOOK(cudaMallocFromPoolAsync,
	     (void **ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream),
	     (ptr, size, pool, stream))
RUNTIME_HOOK(cudaMallocFromPoolAsync_ptsz,
	     (void **ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream),
	     (ptr, size, pool, stream))
RUNTIME_HOOK(cudaFreeAsync, (void *ptr, cudaStream_t stream), (ptr, stream))
RUNTIME_HOOK(cudaFreeAsync_ptsz, (void *ptr, cudaStream_t stream), (ptr, stream))
RUNTIME_HOOK(cudaMallocArray,
	     (cudaArray_t * array, const struct cudaChannelFormatDesc *desc, size_t width,
	      size_t height, unsigned int flags),
	     (array, desc, width, height, flags))
RUNTIME_HOOK(cudaMalloc3DArray,
	     (cudaArray_t * array, const struct cudaChannelFormatDesc *desc,
	      struct cudaExtent extent, unsigned int flags),
	     (array, desc, extent, flags))
RUNTIME_HOOK(cudaMallocMipmappedArray,
	     (cudaMipmappedArray_t * array, const struct cudaChannelFormatDesc *desc,
	      struct cudaExtent extent, unsigned int levels, unsigned int flags),
	     (array, desc, extent, levels, flags))
RUNTIME_HOOK(cudaFreeArray, (cudaArray_t array), (array))
RUNTIME_HOOK(cudaFreeMipmappedArray, (cudaMipmappedArray_t array), (array))
RUNTIME_HOOK(cudaIpcOpenMemHandle, (void **ptr, cudaIpcMemHandle_t handle, unsigned int flags),
	     (ptr, handle, flags))
RUNTIME_HOOK(cudaIpcCloseMemHandle, (void *ptr), (ptr))
RUNTIME_HOOK(cudaExternalMemoryGetMappedBuffer,
	     (void **ptr, cudaExternalMemory_t external,
	      const struct cudaExternalMemoryBufferDesc *desc),
	     (ptr, external, desc))
RUNTIME_HOOK(cudaMemPoolImportPointer,
	     (void **ptr, cudaMemPool_t pool, struct cudaMemPoolPtrExportData *data),
	     (ptr, pool, data))
RUNTIME_HOOK(cudaExternalMemoryGetMappedMipmappedArray,
	     (cudaMipmappedArray_t * array, cudaExternalMemory_t external,
	      const struct cudaExternalMemoryMipmappedArrayDesc *desc),
	     (array, external, desc))
