/* Stand-in driver: streams, events, launches and error strings. Work is
 * never queued, so every stream and event is always complete. */
#include <stdlib.h>
#include <time.h>

#include "sim.h"

struct sim_stream {
	int device;
};

struct sim_event {
	struct timespec recorded;
};

SIM_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned int flags)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!stream || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_stream *created = calloc(1, sizeof(*created));
	if (!created)
		return CUDA_ERROR_OUT_OF_MEMORY;
	created->device = device;
	*stream = (CUstream)created;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamCreateWithPriority(CUstream *stream, unsigned int flags, int priority)
{
	(void)priority;
	return cuStreamCreate(stream, flags);
}

SIM_EXPORT CUresult cuStreamDestroy(CUstream stream)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!stream)
		return CUDA_ERROR_INVALID_HANDLE;
	free(stream);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamSynchronize(CUstream stream)
{
	(void)stream;
	return sim_check_init();
}

SIM_EXPORT CUresult cuStreamQuery(CUstream stream)
{
	(void)stream;
	return sim_check_init();
}

SIM_EXPORT CUresult cuEventCreate(CUevent *event, unsigned int flags)
{
	(void)flags;
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!event)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_event *created = calloc(1, sizeof(*created));
	if (!created)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*event = (CUevent)created;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuEventRecord(CUevent event, CUstream stream)
{
	(void)stream;
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!event)
		return CUDA_ERROR_INVALID_HANDLE;
	clock_gettime(CLOCK_MONOTONIC, &((struct sim_event *)event)->recorded);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuEventSynchronize(CUevent event)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	return event ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuEventQuery(CUevent event)
{
	return cuEventSynchronize(event);
}

SIM_EXPORT CUresult cuEventElapsedTime(float *milliseconds, CUevent start, CUevent end)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!milliseconds)
		return CUDA_ERROR_INVALID_VALUE;
	if (!start || !end)
		return CUDA_ERROR_INVALID_HANDLE;
	const struct timespec *a = &((struct sim_event *)start)->recorded;
	const struct timespec *b = &((struct sim_event *)end)->recorded;
	*milliseconds = (float)((double)(b->tv_sec - a->tv_sec) * 1e3 +
				(double)(b->tv_nsec - a->tv_nsec) / 1e6);
	return CUDA_SUCCESS;
}

/* The 2000 ABI keeps the unversioned name, which cuda.h maps to _v2. */
#undef cuEventElapsedTime
SIM_EXPORT CUresult cuEventElapsedTime(float *milliseconds, CUevent start, CUevent end);
SIM_EXPORT CUresult cuEventElapsedTime(float *milliseconds, CUevent start, CUevent end)
{
	return cuEventElapsedTime_v2(milliseconds, start, end);
}

SIM_EXPORT CUresult cuEventDestroy(CUevent event)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!event)
		return CUDA_ERROR_INVALID_HANDLE;
	free(event);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int grid_x, unsigned int grid_y,
				   unsigned int grid_z, unsigned int block_x, unsigned int block_y,
				   unsigned int block_z, unsigned int shared_bytes, CUstream stream,
				   void **params, void **extra)
{
	(void)grid_x, (void)grid_y, (void)grid_z, (void)block_x, (void)block_y;
	(void)block_z, (void)shared_bytes, (void)stream, (void)params, (void)extra;
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

struct error_text {
	CUresult code;
	const char *name;
	const char *text;
};

static const struct error_text errors[] = {
	{CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
	{CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
	{CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
	{CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
	{CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
	{CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
	{CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
	{CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
	{CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
	{CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
	{CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
	{CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
	 "part or all of the requested memory range is already mapped"},
	{CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
	 "pointer does not correspond to a registered memory region"},
	{CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

static const struct error_text *find_error(CUresult code)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].code == code)
			return &errors[i];
	return NULL;
}

SIM_EXPORT CUresult cuGetErrorString(CUresult code, const char **text)
{
	const struct error_text *error = find_error(code);
	if (!text)
		return CUDA_ERROR_INVALID_VALUE;
	*text = error ? error->text : NULL;
	return error ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuGetErrorName(CUresult code, const char **name)
{
	const struct error_text *error = find_error(code);
	if (!name)
		return CUDA_ERROR_INVALID_VALUE;
	*name = error ? error->name : NULL;
	return error ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
