#pragma once

/* The CUresult's enum name ("CUDA_ERROR_OUT_OF_MEMORY"), or NULL. */
const char *vt_cuda_error_name(int error);
