/* Contexts and modules, as CUPTI's resource domain reports them: the
 * runtime creates device 0's primary context, a 4,736-byte cubin (an ELF64
 * header whose 10 section headers of 64 bytes start at 4,096) is loaded and
 * unloaded there beside a 1 MiB allocation, and a context is created and
 * destroyed on device 1. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <elf.h>
#include <string.h>

int main(void)
{
	static unsigned char cubin[4736];
	/* For the CUDA machine (190), SM 9.0 in ELF ABI 8's flags. */
	Elf64_Ehdr header = {.e_machine = 190,
			     .e_flags = 90 << 8,
			     .e_shoff = 4096,
			     .e_shnum = 10,
			     .e_shentsize = 64};
	memcpy(header.e_ident, ELFMAG, SELFMAG);
	header.e_ident[EI_CLASS] = ELFCLASS64;
	header.e_ident[EI_ABIVERSION] = 8;
	memcpy(cubin, &header, sizeof(header));
	void *buffer;
	if (cudaMalloc(&buffer, 1 << 20) != cudaSuccess)
		return 1;
	CUmodule module;
	if (cuModuleLoadData(&module, cubin) || cuModuleUnload(module))
		return 1;
	CUcontext context;
	if (cuCtxCreate(&context, NULL, 0, 1) || cuCtxDestroy(context))
		return 1;
	return 0;
}
