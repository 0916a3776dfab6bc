/* Stand-in driver: profiling and error strings. */
#include "abi.h"
#include "sim.h"

/* Profiling is collected by tools this device has none of: a no-op. */
SIM_EXPORT CUresult cuProfilerStart(void)
{
	int device;
	return sim_current_device(&device);
}

SIM_EXPORT CUresult cuProfilerStop(void)
{
	int device;
	return sim_current_device(&device);
}

/* Names from cuda.h, texts as NVIDIA's libraries give them (abi.py). */
static const struct sim_error *find_error(CUresult code)
{
	for (unsigned i = 0; i < sim_driver_error_count; i++)
		if (sim_driver_errors[i].code == (int)code)
			return &sim_driver_errors[i];
	return NULL;
}

SIM_EXPORT CUresult cuGetErrorString(CUresult code, const char **text)
{
	const struct sim_error *error = find_error(code);
	if (!text)
		return CUDA_ERROR_INVALID_VALUE;
	*text = error ? error->text : NULL;
	return error ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuGetErrorName(CUresult code, const char **name)
{
	const struct sim_error *error = find_error(code);
	if (!name)
		return CUDA_ERROR_INVALID_VALUE;
	*name = error ? error->name : NULL;
	return error ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
