/* Uses CUDA without allocating: cuInit, a context on device 0 made
 * current, a module loaded from a small cubin, and an early exit. The
 * context alone holds device memory. */
#include <cuda.h>
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
	CUdevice device;
	CUcontext context;
	CUmodule module;
	if (cuInit(0) || cuDeviceGet(&device, 0) || cuCtxCreate(&context, NULL, 0, device) ||
	    cuModuleLoadData(&module, cubin))
		return 1;
	return 0;
}
