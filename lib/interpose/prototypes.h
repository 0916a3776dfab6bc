/* The wrapped entry points as cuda.h declares them, and the few it does
 * not: the per-thread-stream flavours (declared only under CUDA's own
 * macros; each has its legacy twin's type), and the 11030 cuGetProcAddress
 * and 4010 cuIpcOpenMemHandle, whose names cuda.h maps to newer ABIs. And
 * each one's observer, vt_observe_<abi>, which lib/sources defines. */
#pragma once

#include <cuda.h>

#include "entry_points.h"

#undef cuGetProcAddress
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags);
#undef cuIpcOpenMemHandle
CUresult cuIpcOpenMemHandle(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned int flags);

struct vt_observer;

#define VT_DECLARE(base, version, abi, parameters, arguments) \
	extern const struct vt_observer vt_observe_##abi;
#define VT_DECLARE_PER_THREAD(base, version, abi, abi_per_thread, parameters, arguments) \
	VT_DECLARE(base, version, abi, parameters, arguments)                            \
	extern __typeof__(abi) abi_per_thread;                                           \
	extern const struct vt_observer vt_observe_##abi_per_thread;
VT_DRIVER_ENTRY_POINTS(VT_DECLARE, VT_DECLARE_PER_THREAD)
#undef VT_DECLARE
#undef VT_DECLARE_PER_THREAD
