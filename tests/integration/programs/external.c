/* External memory as an interop program sees it: an opaque file descriptor
 * of 16 MiB imported, a 4 MiB buffer mapped at 1 MiB and freed with
 * cudaFree, and a half2 256 x 256 mipmapped array of 3 levels (360448
 * bytes in the simulated layout; its elements 4 x (256 x 256 + 128 x 128
 * + 64 x 64) = 344064 bytes) mapped at 0 and destroyed. Both belong to
 * whichever API allocated the memory, so only the program's own 1 MiB
 * cudaMalloc counts. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <sys/mman.h>
#include <unistd.h>

#define MiB (1ull << 20)

int main(void)
{
	void *own, *buffer;
	int fd = memfd_create("external", 0);
	if (fd < 0 || ftruncate(fd, 16 * MiB) != 0 || cudaMalloc(&own, MiB))
		return 1;
	struct cudaExternalMemoryHandleDesc desc = {
		.type = cudaExternalMemoryHandleTypeOpaqueFd, .handle.fd = fd, .size = 16 * MiB};
	struct cudaExternalMemoryBufferDesc buffer_desc = {.offset = MiB, .size = 4 * MiB};
	struct cudaExternalMemoryBufferDesc too_far = {.offset = 13 * MiB, .size = 4 * MiB};
	struct cudaExternalMemoryMipmappedArrayDesc texture_desc = {
		.formatDesc = {16, 16, 0, 0, cudaChannelFormatKindFloat},
		.extent = {256, 256, 0},
		.numLevels = 3};
	struct cudaExternalMemoryMipmappedArrayDesc too_large = {
		.formatDesc = {32, 32, 32, 32, cudaChannelFormatKindFloat},
		.extent = {4096, 4096, 0},
		.numLevels = 1};
	cudaMipmappedArray_t texture, refused;
	cudaExternalMemory_t external;
	if (cudaImportExternalMemory(&external, &desc) ||
	    cudaExternalMemoryGetMappedBuffer(&buffer, external, &buffer_desc) ||
	    cudaExternalMemoryGetMappedBuffer(&buffer, external, &too_far) !=
		    cudaErrorInvalidValue ||
	    cudaExternalMemoryGetMappedMipmappedArray(&texture, external, &texture_desc) ||
	    cudaExternalMemoryGetMappedMipmappedArray(&refused, external, &too_large) !=
		    cudaErrorInvalidValue ||
	    cudaFreeMipmappedArray(texture) || cudaMemset(buffer, 0, 4 * MiB) || cudaFree(buffer) ||
	    cudaDestroyExternalMemory(external) || cudaFree(own))
		return 1;
	return 0;
}
