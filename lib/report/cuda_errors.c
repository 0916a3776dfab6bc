#include "cuda_errors.h"

#include <cuda.h>
#include <stddef.h>

struct error_name {
	int code;
	const char *name;
};

#define NAME(code)          \
	{                   \
		code, #code \
	}

/* The results an allocation entry point can return. */
static const struct error_name names[] = {
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

const char *vt_cuda_error_name(int error)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].code == error)
			return names[i].name;
	return NULL;
}
