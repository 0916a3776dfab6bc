/* Arrays of the shapes and formats the driver API adds, each counted at
 * its elements' bytes:
 *   a float cubemap 64 x 64, 3 levels, 6 faces at every level
 *        4 x 6 x (64 x 64 + 32 x 32 + 16 x 16) = 4 x 6 x 5376   = 129024
 *   a uchar layered cubemap 16 x 16, 2 layers (12 faces), 2 levels
 *        1 x 12 x (16 x 16 + 8 x 8) = 12 x 320                  =   3840
 *   UNORM_INT8X4, 4 channels of 1 byte, 100 x 50   4 x 100 x 50  =  20000
 *   SNORM_INT16X2, 2 channels of 2 bytes, 1000      4 x 1000     =   4000
 *   BC1 64 x 64, 3 levels, 8 bytes a 4 x 4 block
 *        8 x (16 x 16 + 8 x 8 + 4 x 4) = 8 x 336                =   2688
 *   BC7 30 x 30, 16 bytes a block, partial blocks whole
 *        16 x 8 x 8                                              =   1024
 * 160576 bytes in all, live together, then destroyed; a cubemap that is
 * not square is refused. The device takes 2 MiB (its granularity) for
 * each of the six: 12 MiB. */
#include <cuda.h>
#include <stdio.h>

static int failed(const char *what, CUresult rc, CUresult expected)
{
	if (rc == expected)
		return 0;
	fprintf(stderr, "%s: %d\n", what, rc);
	return 1;
}

int main(void)
{
	CUdevice device;
	CUcontext context;
	if (failed("cuInit", cuInit(0), CUDA_SUCCESS) ||
	    failed("cuDeviceGet", cuDeviceGet(&device, 0), CUDA_SUCCESS) ||
	    failed("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&context, device),
		   CUDA_SUCCESS) ||
	    failed("cuCtxSetCurrent", cuCtxSetCurrent(context), CUDA_SUCCESS))
		return 1;
	CUDA_ARRAY3D_DESCRIPTOR cube = {64, 64, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP};
	CUDA_ARRAY3D_DESCRIPTOR layered_cube = {16, 16,
						12, CU_AD_FORMAT_UNSIGNED_INT8,
						1,  CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED};
	CUDA_ARRAY3D_DESCRIPTOR unorm = {100, 50, 0, CU_AD_FORMAT_UNORM_INT8X4, 4, 0};
	CUDA_ARRAY3D_DESCRIPTOR snorm = {1000, 0, 0, CU_AD_FORMAT_SNORM_INT16X2, 2, 0};
	CUDA_ARRAY3D_DESCRIPTOR not_square = {
		64, 32, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP};
	CUDA_ARRAY3D_DESCRIPTOR bc1 = {64, 64, 0, CU_AD_FORMAT_BC1_UNORM, 4, 0};
	CUDA_ARRAY3D_DESCRIPTOR bc7 = {30, 30, 0, CU_AD_FORMAT_BC7_UNORM, 4, 0};
	CUmipmappedArray cube_levels, layered_levels, bc1_levels;
	CUarray unorm_array, snorm_array, bc7_array, refused;
	size_t free_before, free_after, total;
	if (failed("cuMemGetInfo", cuMemGetInfo(&free_before, &total), CUDA_SUCCESS) ||
	    failed("cubemap", cuMipmappedArrayCreate(&cube_levels, &cube, 3), CUDA_SUCCESS) ||
	    failed("layered cubemap", cuMipmappedArrayCreate(&layered_levels, &layered_cube, 2),
		   CUDA_SUCCESS) ||
	    failed("unorm", cuArray3DCreate(&unorm_array, &unorm), CUDA_SUCCESS) ||
	    failed("snorm", cuArray3DCreate(&snorm_array, &snorm), CUDA_SUCCESS) ||
	    failed("bc1", cuMipmappedArrayCreate(&bc1_levels, &bc1, 3), CUDA_SUCCESS) ||
	    failed("bc7", cuArray3DCreate(&bc7_array, &bc7), CUDA_SUCCESS) ||
	    failed("not square", cuArray3DCreate(&refused, &not_square),
		   CUDA_ERROR_INVALID_VALUE) ||
	    failed("cuMemGetInfo", cuMemGetInfo(&free_after, &total), CUDA_SUCCESS))
		return 1;
	if (free_before - free_after != 12ull << 20) {
		fprintf(stderr, "the arrays took %zu bytes\n", free_before - free_after);
		return 1;
	}
	if (failed("destroy cubemap", cuMipmappedArrayDestroy(cube_levels), CUDA_SUCCESS) ||
	    failed("destroy layered", cuMipmappedArrayDestroy(layered_levels), CUDA_SUCCESS) ||
	    failed("destroy unorm", cuArrayDestroy(unorm_array), CUDA_SUCCESS) ||
	    failed("destroy snorm", cuArrayDestroy(snorm_array), CUDA_SUCCESS) ||
	    failed("destroy bc1", cuMipmappedArrayDestroy(bc1_levels), CUDA_SUCCESS) ||
	    failed("destroy bc7", cuArrayDestroy(bc7_array), CUDA_SUCCESS))
		return 1;
	return 0;
}
