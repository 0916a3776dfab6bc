/* The driver entry points vramtrace exports under their ABI names, each a
 * wrapper around the real one. cuda.h declares most; these are the
 * per-thread-stream flavours it declares only under its own macros, and the
 * 4-argument cuGetProcAddress of the 11030 ABI and cuIpcOpenMemHandle of
 * the 4010 one. */
#pragma once

#include <cuda.h>

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUstream stream);
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
				      CUstream stream);
CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream);
CUresult cuGraphLaunch_ptsz(CUgraphExec exec, CUstream stream);
CUresult cuStreamBeginCapture_v2_ptsz(CUstream stream, CUstreamCaptureMode mode);
CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream stream, CUgraph graph,
					  const CUgraphNode *dependencies,
					  const CUgraphEdgeData *edges, size_t count,
					  CUstreamCaptureMode mode);

#undef cuGetProcAddress
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags);
#undef cuIpcOpenMemHandle
CUresult cuIpcOpenMemHandle(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned int flags);
