/* Stand-in runtime: finding the driver, contexts, devices and errors. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "runtime.h"

struct rt_driver rt_driver;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static cudaError_t init_status;
static __thread cudaError_t last_error;
static __thread int current_device;
static __thread int bound_device = -1;

cudaError_t rt_fail(cudaError_t error)
{
	if (error != cudaSuccess)
		last_error = error;
	return error;
}

int sim_runtime_unsupported(const char *name, int *said, int code)
{
	if (!__atomic_exchange_n(said, 1, __ATOMIC_RELAXED)) {
		sim_unsupported_note(name);
		if (getenv("VRAMSIM_VERBOSE"))
			fprintf(stderr,
				"vramsim: %s is not simulated; it returns cudaErrorNotSupported\n",
				name);
	}
	return rt_fail((cudaError_t)code);
}

__attribute__((destructor)) static void list_unsupported(void)
{
	sim_unsupported_list("libcudart");
}

/* The driver's and the runtime's codes have shared their numbers since
 * CUDA 11: a driver failure is the runtime code of the same number, or
 * cudaErrorUnknown where the runtime has none. */
static cudaError_t map_result(CUresult rc)
{
	for (unsigned i = 0; i < sim_runtime_error_count; i++)
		if (sim_runtime_errors[i].code == (int)rc)
			return (cudaError_t)rc;
	return cudaErrorUnknown;
}

cudaError_t rt_result(CUresult rc)
{
	return rt_fail(map_result(rc));
}

struct wanted {
	const char *name;
	int version;
	cuuint64_t flags;
	void **slot;
};

/* clang-format off */
#define WANT(field, version) {#field, version, 0, (void **)&rt_driver.field}
#define WANT_BOTH(field, version)                                                       \
	{#field, version, 0, (void **)&rt_driver.field[RT_LEGACY_STREAM]},                \
	{#field, version, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,                  \
	 (void **)&rt_driver.field[RT_PER_THREAD_STREAM]}
/* clang-format on */

/* Each function at the ABI version this runtime was written against. */
static const struct wanted wanted[] = {
	WANT(cuDriverGetVersion, 2020),
	WANT(cuGetExportTable, 3000),
	WANT(cuDeviceGetCount, 2000),
	WANT(cuDeviceGet, 2000),
	WANT(cuDeviceGetName, 2000),
	WANT(cuDeviceTotalMem, 3020),
	WANT(cuDeviceGetAttribute, 2000),
	WANT(cuDeviceGetPCIBusId, 4010),
	WANT(cuDeviceGetUuid, 11040),
	WANT(cuDevicePrimaryCtxRetain, 7000),
	WANT(cuDevicePrimaryCtxReset, 11000),
	WANT(cuCtxGetCurrent, 4000),
	WANT(cuCtxSetCurrent, 4000),
	WANT(cuCtxSynchronize, 2000),
	WANT(cuCtxGetDevice, 2000),
	WANT(cuMemAlloc, 3020),
	WANT(cuMemAllocPitch, 3020),
	WANT(cuMemFree, 3020),
	WANT(cuMemAllocManaged, 6000),
	WANT(cuMemHostAlloc, 2020),
	WANT(cuMemFreeHost, 2000),
	WANT(cuMemHostRegister, 6050),
	WANT(cuMemHostUnregister, 4000),
	WANT(cuMemHostGetDevicePointer, 3020),
	WANT(cuPointerGetAttribute, 4000),
	WANT_BOTH(cuMemAllocAsync, 11020),
	WANT_BOTH(cuMemAllocFromPoolAsync, 11020),
	WANT_BOTH(cuMemFreeAsync, 11020),
	WANT(cuDeviceGetDefaultMemPool, 11020),
	WANT(cuDeviceGetMemPool, 11020),
	WANT(cuDeviceSetMemPool, 11020),
	WANT(cuMemPoolCreate, 11020),
	WANT(cuMemPoolDestroy, 11020),
	WANT(cuMemPoolTrimTo, 11020),
	WANT(cuMemPoolGetAttribute, 11020),
	WANT(cuMemPoolSetAttribute, 11020),
	WANT(cuMemPoolExportToShareableHandle, 11020),
	WANT(cuMemPoolImportFromShareableHandle, 11020),
	WANT(cuMemPoolExportPointer, 11020),
	WANT(cuMemPoolImportPointer, 11020),
	WANT(cuMemGetInfo, 3020),
	WANT(cuArray3DCreate, 3020),
	WANT(cuArrayDestroy, 2000),
	WANT(cuMipmappedArrayCreate, 5000),
	WANT(cuMipmappedArrayDestroy, 5000),
	WANT(cuArrayGetMemoryRequirements, 11060),
	WANT(cuMipmappedArrayGetMemoryRequirements, 11060),
	WANT(cuGraphCreate, 10000),
	WANT(cuGraphDestroy, 10000),
	WANT(cuGraphAddMemAllocNode, 11040),
	WANT(cuGraphAddMemFreeNode, 11040),
	WANT(cuGraphInstantiateWithFlags, 11040),
	WANT_BOTH(cuGraphLaunch, 10000),
	WANT_BOTH(cuGraphUpload, 11010),
	WANT(cuGraphExecDestroy, 10000),
	WANT(cuDeviceGraphMemTrim, 11040),
	WANT(cuDeviceGetGraphMemAttribute, 11040),
	WANT(cuDeviceSetGraphMemAttribute, 11040),
	WANT(cuImportExternalMemory, 10000),
	WANT(cuExternalMemoryGetMappedBuffer, 10000),
	WANT(cuExternalMemoryGetMappedMipmappedArray, 10000),
	WANT(cuDestroyExternalMemory, 10000),
	WANT(cuIpcGetMemHandle, 4010),
	WANT(cuIpcOpenMemHandle, 11000),
	WANT(cuIpcCloseMemHandle, 4010),
	WANT(cuMemcpy, 4000),
	WANT(cuMemcpyHtoD, 3020),
	WANT(cuMemcpyDtoH, 3020),
	WANT(cuMemcpyDtoD, 3020),
	WANT(cuMemsetD8, 3020),
	WANT(cuStreamCreate, 2000),
	WANT(cuStreamDestroy, 4000),
	WANT(cuStreamSynchronize, 2000),
	WANT_BOTH(cuStreamBeginCapture, 10010),
	WANT_BOTH(cuStreamEndCapture, 10000),
	WANT_BOTH(cuStreamIsCapturing, 10000),
	WANT(cuStreamQuery, 2000),
	WANT(cuEventCreate, 2000),
	WANT(cuEventRecord, 2000),
	WANT(cuEventSynchronize, 2000),
	WANT(cuEventQuery, 2000),
	WANT(cuEventElapsedTime, 2000),
	WANT(cuEventDestroy, 4000),
	WANT(cuModuleLoadData, 2000),
	WANT(cuModuleGetFunction, 2000),
	WANT_BOTH(cuLaunchKernel, 7000),
	WANT(cuFuncGetAttribute, 2020),
	WANT(cuFuncSetAttribute, 9000),
	WANT(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, 7000),
	WANT(cuOccupancyAvailableDynamicSMemPerBlock, 10020),
	WANT(cuProfilerStart, 4000),
	WANT(cuProfilerStop, 4000),
	WANT(cuArray3DGetDescriptor, 3020),
	WANT(cuMemcpyHtoA, 3020),
	WANT(cuMemcpyAtoH, 3020),
	WANT(cuMemcpyDtoA, 3020),
	WANT(cuMemcpyAtoD, 3020),
	WANT(cuTexObjectCreate, 5000),
	WANT(cuTexObjectDestroy, 5000),
	WANT(cuSurfObjectCreate, 5000),
	WANT(cuSurfObjectDestroy, 5000),
	WANT(cuGraphAddKernelNode, 12000),
	WANT(cuGraphAddMemcpyNode, 10000),
	WANT(cuGraphAddMemsetNode, 10000),
	WANT(cuGraphAddHostNode, 10000),
	WANT(cuGraphAddEmptyNode, 10000),
	WANT(cuGraphGetNodes, 10000),
	WANT(cuGraphClone, 10000),
	WANT(cuIpcGetEventHandle, 4010),
	WANT(cuIpcOpenEventHandle, 4010),
	WANT_BOTH(cuStreamWaitEvent, 7000),
	WANT(cuStreamCreateWithPriority, 5050),
	WANT(cuCtxGetStreamPriorityRange, 5050),
	WANT(cuStreamGetFlags, 5050),
	WANT(cuStreamGetPriority, 5050),
	WANT(cuStreamGetId, 12000),
	WANT(cuStreamGetDevice, 12080),
	WANT(cuStreamAttachMemAsync, 6000),
	WANT_BOTH(cuStreamGetCaptureInfo, 12030),
	WANT(cuThreadExchangeStreamCaptureMode, 10010),
	WANT(cuMemPoolSetAccess, 11020),
	WANT(cuMemPoolGetAccess, 11020),
	WANT(cuFuncGetName, 12030),
	WANT(cuDeviceCanAccessPeer, 4000),
	WANT(cuDeviceGetP2PAttribute, 8000),
	WANT(cuCtxEnablePeerAccess, 4000),
	WANT(cuCtxDisablePeerAccess, 4000),
	WANT(cuMemcpy3D, 3020),
	WANT(cuMemsetD2D8, 3020),
	WANT_BOTH(cuLaunchHostFunc, 10000),
	WANT_BOTH(cuStreamAddCallback, 7000),
	WANT(cuMemPrefetchAsync, 12020),
	WANT(cuMemAdvise, 12020),
	WANT(cuMemRangeGetAttribute, 8000),
	WANT(cuGraphNodeGetType, 10000),
	WANT(cuGraphGetRootNodes, 10000),
	WANT(cuGraphKernelNodeGetParams, 12000),
	WANT(cuGraphKernelNodeSetParams, 12000),
	WANT(cuGraphExecKernelNodeSetParams, 12000),
	WANT(cuGraphExecUpdate, 12000),
	WANT(cuDeviceGetByPCIBusId, 4010),
	WANT(cuKernelGetFunction, 12000),
	WANT(cuLibraryLoadData, 12000),
	WANT(cuLibraryLoadFromFile, 12000),
	WANT(cuLibraryUnload, 12000),
	WANT(cuLibraryGetKernel, 12000),
	WANT(cuLibraryGetKernelCount, 12040),
	WANT(cuLibraryEnumerateKernels, 12040),
};

/* The driver's CUPTI table: where entry and exit reports go. */
static const struct sim_cupti_table *cupti_table;

static cudaError_t load_driver(void)
{
	void *driver = dlopen("libcuda.so.1", RTLD_NOW);
	if (!driver)
		return cudaErrorInsufficientDriver;
	PFN_cuGetProcAddress_v12000 bootstrap =
		(PFN_cuGetProcAddress_v12000)dlsym(driver, "cuGetProcAddress_v2");
	if (!bootstrap)
		return cudaErrorInsufficientDriver;
	CUdriverProcAddressQueryResult status;
	if (bootstrap("cuInit", (void **)&rt_driver.cuInit, 2000, 0, &status) != CUDA_SUCCESS)
		return cudaErrorCallRequiresNewerDriver;
	CUresult rc = rt_driver.cuInit(0);
	if (rc == CUDA_ERROR_NO_DEVICE)
		return cudaErrorNoDevice;
	if (rc == CUDA_ERROR_STUB_LIBRARY)
		return cudaErrorStubLibrary;
	if (rc != CUDA_SUCCESS)
		return cudaErrorInitializationError;
	if (bootstrap("cuGetProcAddress", (void **)&rt_driver.cuGetProcAddress, 12000, 0,
		      &status) != CUDA_SUCCESS)
		return cudaErrorCallRequiresNewerDriver;
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		if (rt_driver.cuGetProcAddress(wanted[i].name, wanted[i].slot, wanted[i].version,
					       wanted[i].flags, &status) != CUDA_SUCCESS)
			return cudaErrorCallRequiresNewerDriver;
	}
	const void *table;
	if (rt_driver.cuGetExportTable(&table, &sim_cupti_table_id) == CUDA_SUCCESS)
		cupti_table = table;
	return cudaSuccess;
}

static void init(void)
{
	init_status = load_driver();
}

/* The first report loads the driver, as the first call would; without
 * one, or without a subscriber, nothing is reported. */
void rt_api_report(enum sim_api_site site, struct sim_api_call *call)
{
	pthread_once(&init_once, init);
	if (cupti_table)
		cupti_table->report(site, call);
}

cudaError_t rt_init(void)
{
	pthread_once(&init_once, init);
	return rt_fail(init_status);
}

static pthread_mutex_t retain_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext primary[64];

static CUresult primary_context(int device, CUcontext *context)
{
	CUresult rc = CUDA_SUCCESS;
	pthread_mutex_lock(&retain_lock);
	if (!primary[device])
		rc = rt_driver.cuDevicePrimaryCtxRetain(&primary[device], device);
	*context = primary[device];
	pthread_mutex_unlock(&retain_lock);
	return rc;
}

cudaError_t rt_primary_context(int device, CUcontext *context)
{
	cudaError_t error = rt_check_device(device);
	return error == cudaSuccess ? rt_result(primary_context(device, context)) : error;
}

cudaError_t rt_check_device(int device)
{
	int count = 0;
	CUresult rc = rt_driver.cuDeviceGetCount(&count);
	if (rc != CUDA_SUCCESS)
		return rt_result(rc);
	if (device < 0 || device >= count || device >= 64)
		return rt_fail(cudaErrorInvalidDevice);
	return cudaSuccess;
}

static cudaError_t bind_device(int device)
{
	cudaError_t error = rt_check_device(device);
	if (error != cudaSuccess)
		return error;
	CUresult rc;
	CUcontext context;
	rc = primary_context(device, &context);
	if (rc == CUDA_SUCCESS)
		rc = rt_driver.cuCtxSetCurrent(context);
	if (rc != CUDA_SUCCESS)
		return rt_result(rc);
	bound_device = device;
	return cudaSuccess;
}

cudaError_t rt_context(void)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	if (bound_device == current_device)
		return cudaSuccess;
	return bind_device(current_device);
}

int rt_current_device(void)
{
	return current_device;
}

RT_EXPORT cudaError_t cudaSetDevice(int device)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	error = bind_device(device);
	if (error == cudaSuccess)
		current_device = device;
	return error;
}

RT_EXPORT cudaError_t cudaGetDevice(int *device)
{
	if (!device)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error == cudaSuccess)
		*device = current_device;
	return error;
}

RT_EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
	if (!count)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error != cudaSuccess) {
		*count = 0;
		return error;
	}
	return rt_result(rt_driver.cuDeviceGetCount(count));
}

RT_EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
	(void)flags;
	return rt_init();
}

RT_EXPORT cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
	if (!flags)
		return rt_fail(cudaErrorInvalidValue);
	*flags = 0;
	return rt_init();
}

RT_EXPORT cudaError_t cudaDeviceSynchronize(void)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuCtxSynchronize());
}

/* Destroys every allocation of the current device's primary context, as
 * cuDevicePrimaryCtxReset does, when that context is current; with another
 * context current, only the runtime's state for it (none here). */
RT_EXPORT cudaError_t cudaDeviceReset(void)
{
	cudaError_t error = cudaDeviceSynchronize();
	if (error != cudaSuccess)
		return error;
	CUcontext its_primary, current = NULL;
	error = rt_primary_context(current_device, &its_primary);
	if (error != cudaSuccess || rt_driver.cuCtxGetCurrent(&current) != CUDA_SUCCESS ||
	    current != its_primary)
		return error;
	return rt_result(rt_driver.cuDevicePrimaryCtxReset(current_device));
}

RT_EXPORT cudaError_t cudaDriverGetVersion(int *version)
{
	if (!version)
		return rt_fail(cudaErrorInvalidValue);
	*version = 0;
	if (rt_init() != cudaSuccess) {
		last_error = cudaSuccess;
		return cudaSuccess; /* documented: 0 when no driver is installed */
	}
	return rt_result(rt_driver.cuDriverGetVersion(version));
}

RT_EXPORT cudaError_t cudaRuntimeGetVersion(int *version)
{
	if (!version)
		return rt_fail(cudaErrorInvalidValue);
	*version = CUDART_VERSION;
	return cudaSuccess;
}

RT_EXPORT cudaError_t cudaGetLastError(void)
{
	cudaError_t error = last_error;
	last_error = cudaSuccess;
	return error;
}

RT_EXPORT cudaError_t cudaPeekAtLastError(void)
{
	return last_error;
}

/* Initializes device's primary context without making it current. */
RT_EXPORT cudaError_t cudaInitDevice(int device, unsigned int device_flags, unsigned int flags)
{
	(void)device_flags;
	if (flags != 0)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error == cudaSuccess)
		error = rt_check_device(device);
	if (error != cudaSuccess)
		return error;
	CUcontext context;
	return rt_result(rt_driver.cuDevicePrimaryCtxRetain(&context, device));
}
