/* Stand-in driver: CUDA IPC. A handle names its exporter's pid, address,
 * size and device; opening one in another process maps a local stand-in of
 * that size (the simulated device shares no memory between processes),
 * charged to the exporter, not to the importer. As on the real driver, a
 * process cannot open its own handle. */
#include <string.h>
#include <unistd.h>

#include "sim.h"

/* The 4010 ABI, still exported for programs built before CUDA 11. */
#undef cuIpcOpenMemHandle
CUresult cuIpcOpenMemHandle(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned int flags);

#define SIM_IPC_MAGIC "vramsim-ipc"

struct sim_ipc_handle {
	char magic[sizeof(SIM_IPC_MAGIC)];
	int32_t pid;
	int32_t device;
	uint64_t address;
	uint64_t bytes;
};

_Static_assert(sizeof(struct sim_ipc_handle) <= CU_IPC_HANDLE_SIZE, "fits a CUipcMemHandle");

SIM_EXPORT CUresult cuIpcGetMemHandle(CUipcMemHandle *handle, CUdeviceptr dptr)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_ipc_handle named = {.magic = SIM_IPC_MAGIC, .pid = getpid()};
	size_t bytes;
	if (!handle || !sim_exportable((uintptr_t)dptr, &bytes, &named.device))
		return CUDA_ERROR_INVALID_VALUE;
	named.address = dptr;
	named.bytes = bytes;
	memset(handle, 0, sizeof(*handle));
	memcpy(handle->reserved, &named, sizeof(named));
	return CUDA_SUCCESS;
}

static CUresult untraced_cuIpcOpenMemHandle_v2(CUdeviceptr *dptr, CUipcMemHandle handle,
					       unsigned int flags)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_ipc_handle named;
	memcpy(&named, handle.reserved, sizeof(named));
	if (!dptr || (flags & ~CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) ||
	    memcmp(named.magic, SIM_IPC_MAGIC, sizeof(named.magic)) != 0 ||
	    !sim_valid_device(named.device) || named.bytes == 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (named.pid == getpid())
		return CUDA_ERROR_INVALID_CONTEXT;
	void *at;
	rc = sim_import(&at, named.bytes, named.device);
	if (rc == CUDA_SUCCESS)
		*dptr = (CUdeviceptr)at;
	return rc;
}

SIM_EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *dptr, CUipcMemHandle handle,
					  unsigned int flags)
{
	cuIpcOpenMemHandle_v2_params params = {dptr, handle, flags};
	return SIM_TRACED(cuIpcOpenMemHandle_v2, &params,
			  untraced_cuIpcOpenMemHandle_v2(dptr, handle, flags));
}

static CUresult untraced_cuIpcOpenMemHandle(CUdeviceptr *dptr, CUipcMemHandle handle,
					    unsigned int flags)
{
	return untraced_cuIpcOpenMemHandle_v2(dptr, handle, flags);
}

SIM_EXPORT CUresult cuIpcOpenMemHandle(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned int flags)
{
	cuIpcOpenMemHandle_params params = {dptr, handle, flags};
	return SIM_TRACED(cuIpcOpenMemHandle, &params,
			  untraced_cuIpcOpenMemHandle(dptr, handle, flags));
}

static CUresult untraced_cuIpcCloseMemHandle(CUdeviceptr dptr)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	return sim_close_import((uintptr_t)dptr);
}

SIM_EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
	cuIpcCloseMemHandle_params params = {dptr};
	return SIM_TRACED(cuIpcCloseMemHandle, &params, untraced_cuIpcCloseMemHandle(dptr));
}

/* An event handle names its exporter's pid and event; another process
 * that opens it gets an event of its own, as nothing runs to signal it. */
#define SIM_IPC_EVENT_MAGIC "vramsim-ipce"

struct sim_ipc_event {
	char magic[sizeof(SIM_IPC_EVENT_MAGIC)];
	int32_t pid;
	uint64_t event;
};

_Static_assert(sizeof(struct sim_ipc_event) <= CU_IPC_HANDLE_SIZE, "fits a CUipcEventHandle");

SIM_EXPORT CUresult cuIpcGetEventHandle(CUipcEventHandle *handle, CUevent event)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!handle || !event)
		return CUDA_ERROR_INVALID_VALUE;
	if (!(sim_event_flags(event) & CU_EVENT_INTERPROCESS))
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_ipc_event named = {
		.magic = SIM_IPC_EVENT_MAGIC, .pid = getpid(), .event = (uintptr_t)event};
	memset(handle, 0, sizeof(*handle));
	memcpy(handle->reserved, &named, sizeof(named));
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuIpcOpenEventHandle(CUevent *event, CUipcEventHandle handle)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_ipc_event named;
	memcpy(&named, handle.reserved, sizeof(named));
	if (!event || memcmp(named.magic, SIM_IPC_EVENT_MAGIC, sizeof(named.magic)) != 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (named.pid == getpid())
		return CUDA_ERROR_INVALID_CONTEXT;
	return cuEventCreate(event, CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS);
}
