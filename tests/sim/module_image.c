/* Stand-in driver: reading the images nvcc writes, as the real driver's
 * loader checks them before it loads anything.
 *
 * - A cubin is an ELF64 object for the CUDA machine; its e_flags name the
 *   SM architecture, and its symbol table the kernels (functions marked as
 *   entries). Machine code runs only on its own major architecture, at the
 *   same or a later minor one.
 * - PTX is text; the driver compiles it for the device, so a target up to
 *   the device's own loads. Its kernels are its .entry directives.
 * - An ELF64 object with no machine at all is no cubin a compiler writes;
 *   the tests of module events build such stand-ins by hand, so it loads,
 *   with no kernels, sized by its header like any cubin.
 * - A fat binary (nvcc -fatbin, or what nvcc embeds in a program, behind a
 *   small wrapper) holds several of those; it loads when one of them suits
 *   the device. Compressed entries are not read, so a fat binary whose
 *   every entry is compressed has kernels of any name. */
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "module_image.h"

#define FATBIN_MAGIC         0xBA55ED50u
#define FATBIN_WRAPPER_MAGIC 0x466243B1u
#define FATBIN_KIND_PTX      1
#define FATBIN_KIND_ELF      2
#define FATBIN_COMPRESSED    (0x2000u | 0x8000u) /* LZ4, Zstandard */
#define EM_CUDA_MACHINE      190
#define STO_CUDA_ENTRY       0x10
#define IMAGE_LIMIT          (1ull << 32) /* no header sends the reader further */

struct fatbin_header {
	uint32_t magic;
	uint16_t version;
	uint16_t header_bytes;
	uint64_t entries_bytes;
};

struct fatbin_entry {
	uint16_t kind;
	uint16_t version;
	uint32_t header_bytes;
	uint64_t payload_bytes;
	uint32_t unknown[3];
	uint32_t arch;
	uint32_t name_offset, name_bytes;
	uint64_t flags;
};

struct fatbin_wrapper {
	uint32_t magic;
	uint32_t version;
	const void *data;
	const void *unused;
};

static bool add_name(struct sim_image *image, const char *name, size_t length)
{
	char **names = realloc(image->names, (image->name_count + 1) * sizeof(*names));
	if (!names)
		return false;
	image->names = names;
	names[image->name_count] = strndup(name, length);
	return names[image->name_count++] != NULL;
}

static bool add_global(struct sim_image *image, const char *name, size_t length, size_t bytes)
{
	char **globals = realloc(image->globals, (image->global_count + 1) * sizeof(*globals));
	if (globals)
		image->globals = globals;
	size_t *sizes = realloc(image->global_bytes, (image->global_count + 1) * sizeof(*sizes));
	if (sizes)
		image->global_bytes = sizes;
	if (!globals || !sizes)
		return false;
	sizes[image->global_count] = bytes;
	globals[image->global_count] = strndup(name, length);
	return globals[image->global_count++] != NULL;
}

static bool arch_runs_machine_code(unsigned code_arch, unsigned device_arch)
{
	return code_arch / 10 == device_arch / 10 && code_arch <= device_arch;
}

/* ELF64 header, section table in bounds: the image's size, or 0. */
static size_t elf_bytes(const unsigned char *bytes, Elf64_Ehdr *header)
{
	memcpy(header, bytes, sizeof(*header));
	if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
	    header->e_ident[EI_CLASS] != ELFCLASS64 ||
	    (header->e_machine != EM_CUDA_MACHINE && header->e_machine != EM_NONE) ||
	    header->e_shentsize != sizeof(Elf64_Shdr))
		return 0;
	uint64_t end = header->e_shoff + (uint64_t)header->e_shnum * sizeof(Elf64_Shdr);
	return end <= IMAGE_LIMIT && end >= sizeof(*header) ? (size_t)end : 0;
}

static unsigned elf_arch(const Elf64_Ehdr *header)
{
	/* Since ELF ABI version 8 the architecture sits in e_flags' second byte. */
	if (header->e_ident[EI_ABIVERSION] >= 8)
		return (header->e_flags >> 8) & 0xff;
	return header->e_flags & 0xff;
}

static bool section_inside(const Elf64_Shdr *section, size_t bytes)
{
	return section->sh_offset <= bytes && section->sh_size <= bytes - section->sh_offset;
}

/* The kernels: function symbols marked as entries. */
static CUresult read_elf_names(const unsigned char *bytes, size_t size, const Elf64_Ehdr *header,
			       struct sim_image *image)
{
	const Elf64_Shdr *sections = (const Elf64_Shdr *)(bytes + header->e_shoff);
	for (unsigned i = 0; i < header->e_shnum; i++) {
		const Elf64_Shdr *table = &sections[i];
		if (table->sh_type != SHT_SYMTAB || table->sh_link >= header->e_shnum)
			continue;
		const Elf64_Shdr *strings = &sections[table->sh_link];
		if (!section_inside(table, size) || !section_inside(strings, size))
			continue;
		const Elf64_Sym *symbols = (const Elf64_Sym *)(bytes + table->sh_offset);
		for (size_t s = 0; s < table->sh_size / sizeof(Elf64_Sym); s++) {
			unsigned type = ELF64_ST_TYPE(symbols[s].st_info);
			bool entry = type == STT_FUNC && (symbols[s].st_other & STO_CUDA_ENTRY);
			if ((!entry && type != STT_OBJECT) ||
			    symbols[s].st_name >= strings->sh_size)
				continue;
			const char *name =
				(const char *)bytes + strings->sh_offset + symbols[s].st_name;
			size_t length = strnlen(name, strings->sh_size - symbols[s].st_name);
			if (entry ? !add_name(image, name, length)
				  : !add_global(image, name, length, symbols[s].st_size))
				return CUDA_ERROR_OUT_OF_MEMORY;
		}
	}
	image->names_known = true;
	return CUDA_SUCCESS;
}

static bool is_ptx(const char *text)
{
	return strstr(text, ".version") && strstr(text, ".target");
}

static unsigned ptx_target(const char *text)
{
	const char *target = strstr(text, ".target");
	const char *sm = target ? strstr(target, "sm_") : NULL;
	return sm ? (unsigned)strtoul(sm + 3, NULL, 10) : 0;
}

/* A PTX variable: ".global .align 4 .b8 name[16];" or ".const .f32 x;":
 * its element type's width times its extents. */
static bool read_ptx_variable(const char *at, const char *end, struct sim_image *image)
{
	const char *line_end = memchr(at, '\n', (size_t)(end - at));
	if (!line_end)
		line_end = end;
	size_t element = 0;
	const char *name = NULL;
	for (const char *token = at; token < line_end && !name;) {
		while (token < line_end && (*token == ' ' || *token == '\t'))
			token++;
		size_t token_length = strcspn(token, " \t\r\n;[=");
		if (token_length >= 3 && token[0] == '.' && strchr("busf", token[1]) &&
		    isdigit((unsigned char)token[2]))
			element = strtoul(token + 2, NULL, 10) / 8;
		else if (token_length && token[0] != '.' && !isdigit((unsigned char)token[0]))
			name = token;
		token += token_length ? token_length : 1;
	}
	if (!name || !element)
		return true;
	size_t name_length = strcspn(name, " \t\r\n;[=");
	size_t bytes = element;
	for (const char *extent = name + name_length; extent < line_end && *extent == '[';) {
		bytes *= strtoul(extent + 1, NULL, 10);
		extent = memchr(extent, ']', (size_t)(line_end - extent));
		extent = extent ? extent + 1 : line_end;
	}
	return add_global(image, name, name_length, bytes);
}

static CUresult read_ptx_globals(const char *text, size_t length, struct sim_image *image)
{
	const char *end = text + length;
	static const char *const spaces[] = {".global ", ".const "};
	for (int i = 0; i < 2; i++) {
		size_t space_length = strlen(spaces[i]);
		for (const char *at = text;
		     (at = memmem(at, (size_t)(end - at), spaces[i], space_length));
		     at += space_length)
			if (!read_ptx_variable(at + space_length, end, image))
				return CUDA_ERROR_OUT_OF_MEMORY;
	}
	return CUDA_SUCCESS;
}

static CUresult read_ptx_names(const char *text, size_t length, struct sim_image *image)
{
	CUresult rc = read_ptx_globals(text, length, image);
	if (rc != CUDA_SUCCESS)
		return rc;
	const char *end = text + length;
	for (const char *at = text; (at = memmem(at, (size_t)(end - at), ".entry", 6)); at += 6) {
		const char *name = at + 6;
		while (name < end && (*name == ' ' || *name == '\t'))
			name++;
		size_t name_length = strcspn(name, " \t\r\n(");
		if (name_length && !add_name(image, name, name_length))
			return CUDA_ERROR_OUT_OF_MEMORY;
	}
	image->names_known = true;
	return CUDA_SUCCESS;
}

static CUresult read_fatbin_entry(const unsigned char *payload, const struct fatbin_entry *entry,
				  unsigned device_arch, struct sim_image *image, bool *suits)
{
	if (entry->kind == FATBIN_KIND_ELF)
		*suits |= arch_runs_machine_code(entry->arch, device_arch);
	else if (entry->kind == FATBIN_KIND_PTX)
		*suits |= entry->arch <= device_arch;
	if (entry->flags & FATBIN_COMPRESSED || image->names_known)
		return CUDA_SUCCESS;
	if (entry->kind == FATBIN_KIND_PTX)
		return read_ptx_names((const char *)payload,
				      strnlen((const char *)payload, entry->payload_bytes), image);
	Elf64_Ehdr header;
	if (entry->kind != FATBIN_KIND_ELF || entry->payload_bytes < sizeof(header) ||
	    elf_bytes(payload, &header) > entry->payload_bytes)
		return CUDA_SUCCESS;
	return read_elf_names(payload, entry->payload_bytes, &header, image);
}

static CUresult read_fatbin(const unsigned char *bytes, unsigned device_arch,
			    struct sim_image *image)
{
	struct fatbin_header header;
	memcpy(&header, bytes, sizeof(header));
	if (header.header_bytes < sizeof(header) || header.entries_bytes > IMAGE_LIMIT)
		return CUDA_ERROR_INVALID_IMAGE;
	image->bytes = header.header_bytes + header.entries_bytes;
	bool suits = false;
	const unsigned char *at = bytes + header.header_bytes, *end = at + header.entries_bytes;
	while (at + sizeof(struct fatbin_entry) <= end) {
		struct fatbin_entry entry;
		memcpy(&entry, at, sizeof(entry));
		if (entry.header_bytes < sizeof(entry) ||
		    entry.payload_bytes > (uint64_t)(end - at) - entry.header_bytes)
			return CUDA_ERROR_INVALID_IMAGE;
		CUresult rc = read_fatbin_entry(at + entry.header_bytes, &entry, device_arch, image,
						&suits);
		if (rc != CUDA_SUCCESS)
			return rc;
		at += entry.header_bytes + entry.payload_bytes;
	}
	return suits ? CUDA_SUCCESS : CUDA_ERROR_NO_BINARY_FOR_GPU;
}

static CUresult read_image(const unsigned char *bytes, unsigned device_arch,
			   struct sim_image *image)
{
	uint32_t magic;
	memcpy(&magic, bytes, sizeof(magic));
	if (magic == FATBIN_WRAPPER_MAGIC) {
		struct fatbin_wrapper wrapper;
		memcpy(&wrapper, bytes, sizeof(wrapper));
		if (!wrapper.data)
			return CUDA_ERROR_INVALID_IMAGE;
		bytes = wrapper.data;
		memcpy(&magic, bytes, sizeof(magic));
		if (magic != FATBIN_MAGIC)
			return CUDA_ERROR_INVALID_IMAGE;
	}
	if (magic == FATBIN_MAGIC)
		return read_fatbin(bytes, device_arch, image);
	Elf64_Ehdr header;
	if (memcmp(bytes, ELFMAG, SELFMAG) == 0) {
		image->bytes = elf_bytes(bytes, &header);
		if (!image->bytes)
			return CUDA_ERROR_INVALID_IMAGE;
		if (header.e_machine == EM_NONE) {
			image->names_known = true;
			return CUDA_SUCCESS;
		}
		if (!arch_runs_machine_code(elf_arch(&header), device_arch))
			return CUDA_ERROR_NO_BINARY_FOR_GPU;
		return read_elf_names(bytes, image->bytes, &header, image);
	}
	const char *text = (const char *)bytes;
	if (!is_ptx(text))
		return CUDA_ERROR_INVALID_IMAGE;
	image->bytes = strlen(text) + 1;
	if (ptx_target(text) > device_arch)
		return CUDA_ERROR_INVALID_PTX;
	return read_ptx_names(text, image->bytes - 1, image);
}

CUresult sim_image_read(const void *bytes, unsigned device_arch, struct sim_image *image)
{
	*image = (struct sim_image){0};
	CUresult rc = read_image(bytes, device_arch, image);
	if (rc != CUDA_SUCCESS)
		sim_image_free(image);
	return rc;
}

bool sim_image_has(const struct sim_image *image, const char *name)
{
	if (!image->names_known)
		return true;
	for (size_t i = 0; i < image->name_count; i++)
		if (strcmp(image->names[i], name) == 0)
			return true;
	return false;
}

bool sim_image_global(const struct sim_image *image, const char *name, size_t *bytes)
{
	for (size_t i = 0; i < image->global_count; i++)
		if (strcmp(image->globals[i], name) == 0) {
			*bytes = image->global_bytes[i];
			return true;
		}
	return false;
}

void sim_image_free(struct sim_image *image)
{
	for (size_t i = 0; i < image->name_count; i++)
		free(image->names[i]);
	free(image->names);
	for (size_t i = 0; i < image->global_count; i++)
		free(image->globals[i]);
	free(image->globals);
	free(image->global_bytes);
	*image = (struct sim_image){0};
}
