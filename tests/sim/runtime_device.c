/* Stand-in runtime: device properties, streams, events, error strings and
 * driver entry points. */
#include <string.h>

#include "runtime.h"

static int attribute(CUdevice_attribute which, int device)
{
	int value = 0;
	rt_driver.cuDeviceGetAttribute(&value, which, device);
	return value;
}

RT_EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	if (!prop)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	CUdevice handle;
	CUresult rc = rt_driver.cuDeviceGet(&handle, device);
	if (rc != CUDA_SUCCESS)
		return rt_result(rc);
	memset(prop, 0, sizeof(*prop));
	rt_driver.cuDeviceGetName(prop->name, sizeof(prop->name), handle);
	rt_driver.cuDeviceTotalMem(&prop->totalGlobalMem, handle);
	rt_driver.cuDeviceGetUuid((CUuuid *)&prop->uuid, handle);
	prop->major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, handle);
	prop->minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, handle);
	prop->multiProcessorCount = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, handle);
	prop->warpSize = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE, handle);
	prop->maxThreadsPerBlock = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, handle);
	prop->pciBusID = attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, handle);
	prop->pciDeviceID = attribute(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, handle);
	prop->pciDomainID = attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, handle);
	prop->unifiedAddressing = attribute(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, handle);
	prop->managedMemory = attribute(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, handle);
	prop->texturePitchAlignment =
		(size_t)attribute(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, handle);
	return cudaSuccess;
}

RT_EXPORT cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr which, int device)
{
	if (!value)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDeviceGetAttribute(value, (CUdevice_attribute)which, device));
}

RT_EXPORT cudaError_t cudaDeviceGetPCIBusId(char *bus_id, int len, int device)
{
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuDeviceGetPCIBusId(bus_id, len, device));
}

RT_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamCreate((CUstream *)stream, flags));
}

RT_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
	return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

RT_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamDestroy((CUstream)stream));
}

RT_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamSynchronize((CUstream)stream));
}

RT_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
	return cudaStreamSynchronize(stream);
}

RT_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuStreamQuery((CUstream)stream));
}

RT_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuEventCreate((CUevent *)event, flags));
}

RT_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event)
{
	return cudaEventCreateWithFlags(event, cudaEventDefault);
}

RT_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuEventRecord((CUevent)event, (CUstream)stream));
}

RT_EXPORT cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
	return cudaEventRecord(event, stream);
}

RT_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuEventSynchronize((CUevent)event));
}

RT_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuEventQuery((CUevent)event));
}

RT_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuEventElapsedTime(ms, (CUevent)start, (CUevent)end));
}

RT_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	cudaError_t error = rt_context();
	if (error != cudaSuccess)
		return error;
	return rt_result(rt_driver.cuEventDestroy((CUevent)event));
}

/* Texts as the real libcudart 13 returns them. */
struct error_text {
	cudaError_t code;
	const char *name;
	const char *text;
};

static const struct error_text errors[] = {
	{cudaSuccess, "cudaSuccess", "no error"},
	{cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
	{cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
	{cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
	{cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down"},
	{cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
	{cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
	 "invalid copy direction for memcpy"},
	{cudaErrorStubLibrary, "cudaErrorStubLibrary", "CUDA driver is a stub library"},
	{cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver",
	 "CUDA driver version is insufficient for CUDA runtime version"},
	{cudaErrorCallRequiresNewerDriver, "cudaErrorCallRequiresNewerDriver",
	 "API call is not supported in the installed CUDA driver"},
	{cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction",
	 "invalid device function"},
	{cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
	{cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
	{cudaErrorDeviceUninitialized, "cudaErrorDeviceUninitialized", "invalid device context"},
	{cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle",
	 "invalid resource handle"},
	{cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
	{cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
	{cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
	 "an illegal memory access was encountered"},
	{cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
	{cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

static const struct error_text *find_error(cudaError_t code)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].code == code)
			return &errors[i];
	return NULL;
}

RT_EXPORT const char *cudaGetErrorString(cudaError_t error)
{
	const struct error_text *found = find_error(error);
	return found ? found->text : "unrecognized error code";
}

RT_EXPORT const char *cudaGetErrorName(cudaError_t error)
{
	const struct error_text *found = find_error(error);
	return found ? found->name : "unrecognized error code";
}

static cuuint64_t driver_flags(unsigned long long flags)
{
	cuuint64_t out = 0;
	if (flags & cudaEnableLegacyStream)
		out |= CU_GET_PROC_ADDRESS_LEGACY_STREAM;
	if (flags & cudaEnablePerThreadDefaultStream)
		out |= CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
	return out;
}

/* Served by the cuGetProcAddress pointer the runtime holds, as in the real
 * runtime: a tracer that wrapped that pointer sees these requests too. */
static cudaError_t entry_point(const char *symbol, void **fn, unsigned int version,
			       unsigned long long flags,
			       enum cudaDriverEntryPointQueryResult *status)
{
	if (!symbol || !fn)
		return rt_fail(cudaErrorInvalidValue);
	cudaError_t error = rt_init();
	if (error != cudaSuccess)
		return error;
	CUdriverProcAddressQueryResult driver_status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	CUresult rc = rt_driver.cuGetProcAddress(symbol, fn, (int)version, driver_flags(flags),
						 &driver_status);
	if (status)
		*status = (enum cudaDriverEntryPointQueryResult)driver_status;
	if (rc == CUDA_ERROR_NOT_FOUND)
		return cudaSuccess; /* the status says why; the call itself worked */
	return rt_result(rc);
}

RT_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **fn,
						       unsigned int version,
						       unsigned long long flags,
						       enum cudaDriverEntryPointQueryResult *status)
{
	return entry_point(symbol, fn, version, flags, status);
}

RT_EXPORT cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
	const char *symbol, void **fn, unsigned int version, unsigned long long flags,
	enum cudaDriverEntryPointQueryResult *status)
{
	return entry_point(symbol, fn, version, flags, status);
}

RT_EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **fn,
					      unsigned long long flags,
					      enum cudaDriverEntryPointQueryResult *status)
{
	return entry_point(symbol, fn, CUDART_VERSION, flags, status);
}

RT_EXPORT cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **fn,
						   unsigned long long flags,
						   enum cudaDriverEntryPointQueryResult *status)
{
	return entry_point(symbol, fn, CUDART_VERSION, flags, status);
}
