/* The wrapped entry points as cuda.h declares them, and the few it does
 * not: the per-thread-stream flavours (declared only under CUDA's own
 * macros; each has its legacy twin's type), and the older ABIs whose names
 * cuda.h maps to newer ones (the 11030 cuGetProcAddress, the 4010
 * cuIpcOpenMemHandle, the contexts' calls of CUDA 2.0 to 11.4, CUDA 4.0's
 * cuMemHostRegister and 10.0's cuStreamBeginCapture), which a
 * driver still exports for programs built against older headers. And
 * each one's observer, vt_observe_<abi>, which lib/sources defines. */
#pragma once

#include <cuda.h>

#include "entry_points.h"

#undef cuGetProcAddress
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags);
#undef cuIpcOpenMemHandle
CUresult cuIpcOpenMemHandle(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned int flags);
#undef cuCtxCreate
CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
			unsigned int flags, CUdevice dev);
#undef cuCtxDestroy
CUresult cuCtxDestroy(CUcontext ctx);
#undef cuDevicePrimaryCtxRelease
CUresult cuDevicePrimaryCtxRelease(CUdevice dev);
#undef cuDevicePrimaryCtxReset
CUresult cuDevicePrimaryCtxReset(CUdevice dev);
#undef cuMemHostRegister
CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags);
#undef cuStreamBeginCapture
CUresult cuStreamBeginCapture(CUstream hStream);

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
