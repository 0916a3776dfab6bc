#define _GNU_SOURCE
#include "driver_hooks.h"

#include <dlfcn.h>

#include <cuda.h>
#include <stdatomic.h>
#include <string.h>

#include "driver_wrappers.h"
#include "observer.h"
#include "real.h"

/* Every observed entry point: X(base, version, abi) for one stream
 * flavour, X_PT(base, version, abi, abi_ptsz) for both. The ABIs of one
 * base name go by version, so the newest a request allows is the last
 * match. */
/* clang-format off */
#define OBSERVED_HOOKS(X, X_PT) \
	X("cuArray3DCreate", 3020, cuArray3DCreate_v2) \
	X("cuArrayCreate", 3020, cuArrayCreate_v2) \
	X("cuArrayDestroy", 2000, cuArrayDestroy) \
	X("cuCtxCreate", 12050, cuCtxCreate_v4) \
	X("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain) \
	X("cuDeviceSetMemPool", 11020, cuDeviceSetMemPool) \
	X("cuDeviceGraphMemTrim", 11040, cuDeviceGraphMemTrim) \
	X("cuExternalMemoryGetMappedBuffer", 10000, cuExternalMemoryGetMappedBuffer) \
	X("cuExternalMemoryGetMappedMipmappedArray", 10000, cuExternalMemoryGetMappedMipmappedArray) \
	X("cuGraphAddMemAllocNode", 11040, cuGraphAddMemAllocNode) \
	X_PT("cuGraphLaunch", 10000, cuGraphLaunch, cuGraphLaunch_ptsz) \
	X("cuInit", 2000, cuInit) \
	X("cuIpcCloseMemHandle", 4010, cuIpcCloseMemHandle) \
	X("cuIpcOpenMemHandle", 4010, cuIpcOpenMemHandle) \
	X("cuIpcOpenMemHandle", 11000, cuIpcOpenMemHandle_v2) \
	X("cuMemAlloc", 3020, cuMemAlloc_v2) \
	X("cuMemCreate", 10020, cuMemCreate) \
	X("cuMemMap", 10020, cuMemMap) \
	X("cuMemRelease", 10020, cuMemRelease) \
	X("cuMemUnmap", 10020, cuMemUnmap) \
	X_PT("cuMemAllocAsync", 11020, cuMemAllocAsync, cuMemAllocAsync_ptsz) \
	X_PT("cuMemAllocFromPoolAsync", 11020, cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync_ptsz) \
	X("cuMemAllocHost", 3020, cuMemAllocHost_v2) \
	X("cuMemAllocManaged", 6000, cuMemAllocManaged) \
	X("cuMemAllocPitch", 3020, cuMemAllocPitch_v2) \
	X("cuMemFree", 3020, cuMemFree_v2) \
	X_PT("cuMemFreeAsync", 11020, cuMemFreeAsync, cuMemFreeAsync_ptsz) \
	X("cuMemFreeHost", 2000, cuMemFreeHost) \
	X("cuMemHostAlloc", 2020, cuMemHostAlloc) \
	X("cuMemHostRegister", 6050, cuMemHostRegister_v2) \
	X("cuMemHostUnregister", 4000, cuMemHostUnregister) \
	X("cuMipmappedArrayCreate", 5000, cuMipmappedArrayCreate) \
	X("cuMipmappedArrayDestroy", 5000, cuMipmappedArrayDestroy) \
	X("cuMulticastCreate", 12010, cuMulticastCreate) \
	X("cuMemPoolCreate", 11020, cuMemPoolCreate) \
	X("cuMemPoolImportPointer", 11020, cuMemPoolImportPointer) \
	X("cuMemPoolDestroy", 11020, cuMemPoolDestroy) \
	X("cuMemPoolTrimTo", 11020, cuMemPoolTrimTo) \
	X_PT("cuStreamBeginCapture", 10010, cuStreamBeginCapture_v2, cuStreamBeginCapture_v2_ptsz) \
	X_PT("cuStreamBeginCaptureToGraph", 12030, cuStreamBeginCaptureToGraph, \
	     cuStreamBeginCaptureToGraph_ptsz)

#define DECLARE(base, version, abi) extern const struct vt_observer vt_observe_##abi;
#define DECLARE_PT(base, version, abi, abi_pt) DECLARE(base, version, abi) DECLARE(base, version, abi_pt)
OBSERVED_HOOKS(DECLARE, DECLARE_PT)

#define HOOK(base, version, abi) \
	{base, version, {#abi, NULL}, {(void *)(abi), NULL}, {&vt_observe_##abi, NULL}, {NULL, NULL}},
#define HOOK_PT(base, version, abi, abi_pt) \
	{base, version, {#abi, #abi_pt}, {(void *)(abi), (void *)(abi_pt)}, \
	 {&vt_observe_##abi, &vt_observe_##abi_pt}, {NULL, NULL}},
#define UNOBSERVED(base, version, abi) \
	{base, version, {#abi, NULL}, {(void *)(abi), NULL}, {NULL, NULL}, {NULL, NULL}},

static struct vt_hook hooks[] = {
	/* The entry points themselves: wrapped so that every pointer they
	 * hand out is a hook; nothing to observe. */
	UNOBSERVED("cuGetProcAddress", 11030, cuGetProcAddress)
	UNOBSERVED("cuGetProcAddress", 12000, cuGetProcAddress_v2)
	OBSERVED_HOOKS(HOOK, HOOK_PT)
};
/* clang-format on */

#define HOOK_COUNT (sizeof(hooks) / sizeof(hooks[0]))

struct vt_hook *vt_hook_named(const char *abi_name)
{
	for (size_t i = 0; i < HOOK_COUNT; i++)
		if (strcmp(hooks[i].abi_name[VT_LEGACY_STREAM], abi_name) == 0)
			return &hooks[i];
	return NULL;
}

static bool is_wrapper(const void *fn)
{
	for (size_t i = 0; i < HOOK_COUNT; i++)
		for (int f = 0; f < VT_STREAM_FLAVOURS; f++)
			if (hooks[i].wrapper[f] == fn)
				return true;
	return false;
}

/* The driver is the library whose file is libcuda.so*: the first such one
 * a wrapped function comes from. */
static bool from_driver(const void *fn)
{
	static _Atomic(void *) driver_base;
	Dl_info info;
	if (!dladdr(fn, &info) || !info.dli_fbase)
		return false;
	void *known = atomic_load_explicit(&driver_base, memory_order_acquire);
	if (known)
		return info.dli_fbase == known;
	const char *slash = info.dli_fname ? strrchr(info.dli_fname, '/') : NULL;
	const char *file = slash ? slash + 1 : info.dli_fname;
	if (!file || strncmp(file, "libcuda.so", strlen("libcuda.so")) != 0)
		return false;
	atomic_compare_exchange_strong(&driver_base, &known, info.dli_fbase);
	return atomic_load(&driver_base) == info.dli_fbase;
}

/* Only the driver's functions are wrapped, the first one offered for a
 * slot kept. Any other library's function of the same name (a shim, a
 * stub, a second driver build) is handed out as it is, so that each lookup
 * reaches the library the program asked; a lookup that finds vramtrace's
 * own export (dlsym(RTLD_DEFAULT, ...)) is not a real one. */
static void *offer(struct vt_hook *hook, enum vt_stream_flavour flavour, void *real)
{
	if (is_wrapper(real) || !from_driver(real))
		return real;
	void *expected = NULL;
	atomic_compare_exchange_strong(&hook->real[flavour], &expected, real);
	return hook->wrapper[flavour];
}

/* A wrapper reached by its exported name, before anything was offered:
 * the function the program would have reached without vramtrace. */
void *vt_hook_real(struct vt_hook *hook, enum vt_stream_flavour flavour)
{
	void *real = atomic_load_explicit(&hook->real[flavour], memory_order_acquire);
	if (real)
		return real;
	real = vt_real_next(hook->abi_name[flavour]);
	if (!real || is_wrapper(real))
		return NULL;
	offer(hook, flavour, real);
	return real;
}

void *vt_hooks_wrap_symbol(const char *name, void *real)
{
	for (size_t i = 0; i < HOOK_COUNT; i++)
		for (int f = 0; f < VT_STREAM_FLAVOURS; f++)
			if (hooks[i].abi_name[f] && strcmp(hooks[i].abi_name[f], name) == 0)
				return offer(&hooks[i], (enum vt_stream_flavour)f, real);
	return real;
}

void *vt_hooks_wrap_entry_point(const char *base_name, int version, uint64_t flags, void *real)
{
	struct vt_hook *best = NULL;
	for (size_t i = 0; i < HOOK_COUNT; i++)
		if (strcmp(hooks[i].base_name, base_name) == 0 && hooks[i].min_version <= version)
			best = &hooks[i];
	if (!best)
		return real; /* not wrapped, or an older ABI that is passed through */
	bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) &&
			  best->wrapper[VT_PER_THREAD_STREAM];
	return offer(best, per_thread ? VT_PER_THREAD_STREAM : VT_LEGACY_STREAM, real);
}

void vt_hooks_for_each_observer(void (*visit)(const struct vt_observer *observer, void *context),
				void *context)
{
	for (size_t i = 0; i < HOOK_COUNT; i++)
		for (int f = 0; f < VT_STREAM_FLAVOURS; f++)
			if (hooks[i].observer[f])
				visit(hooks[i].observer[f], context);
}
