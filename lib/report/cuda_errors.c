#include "cuda_errors.h"

#include <cuda.h>
#include <driver_types.h>
#include <stddef.h>
#include <string.h>

struct error_name {
	int code;
	const char *name;
};

#define NAME(code)          \
	{                   \
		code, #code \
	}

/* The results an allocation entry point can return. */
static const struct error_name driver_names[] = {
	NAME(CUDA_ERROR_INVALID_VALUE),
	NAME(CUDA_ERROR_OUT_OF_MEMORY),
	NAME(CUDA_ERROR_NOT_INITIALIZED),
	NAME(CUDA_ERROR_DEINITIALIZED),
	NAME(CUDA_ERROR_STUB_LIBRARY),
	NAME(CUDA_ERROR_NO_DEVICE),
	NAME(CUDA_ERROR_INVALID_DEVICE),
	NAME(CUDA_ERROR_INVALID_CONTEXT),
	NAME(CUDA_ERROR_CONTEXT_IS_DESTROYED),
	NAME(CUDA_ERROR_INVALID_HANDLE),
	NAME(CUDA_ERROR_NOT_FOUND),
	NAME(CUDA_ERROR_NOT_SUPPORTED),
	NAME(CUDA_ERROR_NOT_PERMITTED),
	NAME(CUDA_ERROR_ILLEGAL_ADDRESS),
	NAME(CUDA_ERROR_LAUNCH_FAILED),
	NAME(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED),
	NAME(CUDA_ERROR_UNKNOWN),
};

/* Since CUDA 11 the runtime returns a driver failure as its own code of
 * the same number (cudaErrorUnknown where it has none): the same failures,
 * as a program calling the runtime saw them. */
static const struct error_name runtime_names[] = {
	NAME(cudaErrorInvalidValue),
	NAME(cudaErrorMemoryAllocation),
	NAME(cudaErrorInitializationError),
	NAME(cudaErrorCudartUnloading),
	NAME(cudaErrorStubLibrary),
	NAME(cudaErrorNoDevice),
	NAME(cudaErrorInvalidDevice),
	NAME(cudaErrorDeviceUninitialized),
	NAME(cudaErrorContextIsDestroyed),
	NAME(cudaErrorInvalidResourceHandle),
	NAME(cudaErrorSymbolNotFound),
	NAME(cudaErrorNotSupported),
	NAME(cudaErrorNotPermitted),
	NAME(cudaErrorIllegalAddress),
	NAME(cudaErrorLaunchFailure),
	NAME(cudaErrorStreamCaptureUnsupported),
	NAME(cudaErrorUnknown),
};

static const char *find(const struct error_name *names, size_t count, int error)
{
	for (size_t i = 0; i < count; i++)
		if (names[i].code == error)
			return names[i].name;
	return NULL;
}

const char *vt_cuda_error_name(const char *api, int error)
{
	if (api && strncmp(api, "cuda", 4) == 0)
		return find(runtime_names, sizeof(runtime_names) / sizeof(runtime_names[0]), error);
	return find(driver_names, sizeof(driver_names) / sizeof(driver_names[0]), error);
}
