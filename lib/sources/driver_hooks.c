#include "driver_hooks.h"

#include <cuda.h>
#include <stdatomic.h>
#include <string.h>

#include "driver_wrappers.h"
#include "real.h"

/* clang-format off */
#define HOOK(base, version, abi, fn) \
	{base, version, {abi, NULL}, {(void *)(fn), NULL}, {NULL, NULL}}
#define HOOK_PT(base, version, abi, fn, abi_pt, fn_pt) \
	{base, version, {abi, abi_pt}, {(void *)(fn), (void *)(fn_pt)}, {NULL, NULL}}
/* clang-format on */

/* Sorted by base name, then version, so the newest ABI a request allows is
 * the last match. */
static struct vt_hook hooks[] = {
	HOOK("cuArray3DCreate", 3020, "cuArray3DCreate_v2", cuArray3DCreate_v2),
	HOOK("cuArrayCreate", 3020, "cuArrayCreate_v2", cuArrayCreate_v2),
	HOOK("cuArrayDestroy", 2000, "cuArrayDestroy", cuArrayDestroy),
	HOOK("cuGetProcAddress", 11030, "cuGetProcAddress", cuGetProcAddress),
	HOOK("cuGetProcAddress", 12000, "cuGetProcAddress_v2", cuGetProcAddress_v2),
	HOOK("cuDeviceSetMemPool", 11020, "cuDeviceSetMemPool", cuDeviceSetMemPool),
	HOOK("cuDeviceGraphMemTrim", 11040, "cuDeviceGraphMemTrim", cuDeviceGraphMemTrim),
	HOOK("cuExternalMemoryGetMappedBuffer", 10000, "cuExternalMemoryGetMappedBuffer",
	     cuExternalMemoryGetMappedBuffer),
	HOOK("cuExternalMemoryGetMappedMipmappedArray", 10000,
	     "cuExternalMemoryGetMappedMipmappedArray", cuExternalMemoryGetMappedMipmappedArray),
	HOOK("cuGraphAddMemAllocNode", 11040, "cuGraphAddMemAllocNode", cuGraphAddMemAllocNode),
	HOOK_PT("cuGraphLaunch", 10000, "cuGraphLaunch", cuGraphLaunch, "cuGraphLaunch_ptsz",
		cuGraphLaunch_ptsz),
	HOOK("cuIpcCloseMemHandle", 4010, "cuIpcCloseMemHandle", cuIpcCloseMemHandle),
	HOOK("cuIpcOpenMemHandle", 4010, "cuIpcOpenMemHandle", cuIpcOpenMemHandle),
	HOOK("cuIpcOpenMemHandle", 11000, "cuIpcOpenMemHandle_v2", cuIpcOpenMemHandle_v2),
	HOOK("cuMemAlloc", 3020, "cuMemAlloc_v2", cuMemAlloc_v2),
	HOOK("cuMemCreate", 10020, "cuMemCreate", cuMemCreate),
	HOOK("cuMemMap", 10020, "cuMemMap", cuMemMap),
	HOOK("cuMemRelease", 10020, "cuMemRelease", cuMemRelease),
	HOOK("cuMemUnmap", 10020, "cuMemUnmap", cuMemUnmap),
	HOOK_PT("cuMemAllocAsync", 11020, "cuMemAllocAsync", cuMemAllocAsync,
		"cuMemAllocAsync_ptsz", cuMemAllocAsync_ptsz),
	HOOK_PT("cuMemAllocFromPoolAsync", 11020, "cuMemAllocFromPoolAsync",
		cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync_ptsz",
		cuMemAllocFromPoolAsync_ptsz),
	HOOK("cuMemAllocHost", 3020, "cuMemAllocHost_v2", cuMemAllocHost_v2),
	HOOK("cuMemAllocManaged", 6000, "cuMemAllocManaged", cuMemAllocManaged),
	HOOK("cuMemAllocPitch", 3020, "cuMemAllocPitch_v2", cuMemAllocPitch_v2),
	HOOK("cuMemFree", 3020, "cuMemFree_v2", cuMemFree_v2),
	HOOK_PT("cuMemFreeAsync", 11020, "cuMemFreeAsync", cuMemFreeAsync, "cuMemFreeAsync_ptsz",
		cuMemFreeAsync_ptsz),
	HOOK("cuMemFreeHost", 2000, "cuMemFreeHost", cuMemFreeHost),
	HOOK("cuMemHostAlloc", 2020, "cuMemHostAlloc", cuMemHostAlloc),
	HOOK("cuMemHostRegister", 6050, "cuMemHostRegister_v2", cuMemHostRegister_v2),
	HOOK("cuMemHostUnregister", 4000, "cuMemHostUnregister", cuMemHostUnregister),
	HOOK("cuMipmappedArrayCreate", 5000, "cuMipmappedArrayCreate", cuMipmappedArrayCreate),
	HOOK("cuMipmappedArrayDestroy", 5000, "cuMipmappedArrayDestroy", cuMipmappedArrayDestroy),
	HOOK("cuMulticastCreate", 12010, "cuMulticastCreate", cuMulticastCreate),
	HOOK("cuMemPoolImportPointer", 11020, "cuMemPoolImportPointer", cuMemPoolImportPointer),
	HOOK("cuMemPoolDestroy", 11020, "cuMemPoolDestroy", cuMemPoolDestroy),
	HOOK("cuMemPoolTrimTo", 11020, "cuMemPoolTrimTo", cuMemPoolTrimTo),
};

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

/* Keeps the first real function offered for a slot. A lookup that finds
 * vramtrace's own export (dlsym(RTLD_DEFAULT, ...)) is not a real one. */
static void *offer(struct vt_hook *hook, enum vt_stream_flavour flavour, void *real)
{
	if (is_wrapper(real))
		return real;
	void *expected = NULL;
	atomic_compare_exchange_strong(&hook->real[flavour], &expected, real);
	return hook->wrapper[flavour];
}

void *vt_hook_real(struct vt_hook *hook, enum vt_stream_flavour flavour)
{
	void *real = atomic_load_explicit(&hook->real[flavour], memory_order_acquire);
	if (real)
		return real;
	real = vt_real_next(hook->abi_name[flavour]);
	if (real && !is_wrapper(real))
		offer(hook, flavour, real);
	return atomic_load_explicit(&hook->real[flavour], memory_order_acquire);
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
