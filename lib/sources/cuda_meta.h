/* CUPTI's generated_cuda_meta.h: the parameter struct of every driver entry
 * point, as a CUPTI callback hands it over. It also lays out the CUDA 3.1
 * ABIs, whose 32-bit types cuda.h defines only for the driver's own build
 * (__CUDA_API_VERSION_INTERNAL); those entry points are never observed, so
 * their types are declared here, the structs left incomplete. */
#pragma once

#include <cuda.h>

typedef unsigned int CUdeviceptr_v1;
typedef struct CUDA_MEMCPY2D_v1_st CUDA_MEMCPY2D_v1;
typedef struct CUDA_MEMCPY3D_v1_st CUDA_MEMCPY3D_v1;
typedef struct CUDA_ARRAY_DESCRIPTOR_v1_st CUDA_ARRAY_DESCRIPTOR_v1;
typedef struct CUDA_ARRAY3D_DESCRIPTOR_v1_st CUDA_ARRAY3D_DESCRIPTOR_v1;

#include <generated_cuda_meta.h>
