#pragma once

/* A failure's name as the program saw it: the cudaError_t's enum name
 * ("cudaErrorMemoryAllocation") when it called the runtime (api "cuda..."),
 * else the CUresult's ("CUDA_ERROR_OUT_OF_MEMORY"); NULL for a code neither
 * names. error is the driver's code, which the runtime returns as its own
 * of the same number. */
const char *vt_cuda_error_name(const char *api, int error);
