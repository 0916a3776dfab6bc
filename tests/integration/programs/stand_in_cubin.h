/* A 4,736-byte stand-in cubin for the programs that load modules: an ELF64
 * header whose 10 section headers of 64 bytes start at 4,096, with no
 * sections and so no kernels. For the CUDA machine (190) it is SM 9.0
 * machine code, as ELF ABI 8's flags say; for machine 0, no cubin at all,
 * which the simulated loader takes as a stand-in. */
#pragma once

#include <elf.h>
#include <string.h>

#define STAND_IN_CUBIN_BYTES 4736

static inline void stand_in_cubin(unsigned char out[STAND_IN_CUBIN_BYTES], unsigned machine)
{
	Elf64_Ehdr header = {.e_machine = (Elf64_Half)machine,
			     .e_flags = machine ? 90 << 8 : 0,
			     .e_shoff = 4096,
			     .e_shnum = 10,
			     .e_shentsize = 64};
	memcpy(header.e_ident, ELFMAG, SELFMAG);
	header.e_ident[EI_CLASS] = ELFCLASS64;
	header.e_ident[EI_ABIVERSION] = machine ? 8 : 0;
	memset(out, 0, STAND_IN_CUBIN_BYTES);
	memcpy(out, &header, sizeof(header));
}
