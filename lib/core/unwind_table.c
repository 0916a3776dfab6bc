#define _GNU_SOURCE
#include "unwind_table.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <string.h>

/* DW_EH_PE encodings. */
enum {
	PE_OMIT = 0xff,
	PE_FORMAT = 0x0f,
	PE_ULEB = 0x01,
	PE_UDATA2 = 0x02,
	PE_UDATA4 = 0x03,
	PE_UDATA8 = 0x04,
	PE_SLEB = 0x09,
	PE_SDATA2 = 0x0a,
	PE_SDATA4 = 0x0b,
	PE_SDATA8 = 0x0c,
	PE_APPLY = 0x70,
	PE_PCREL = 0x10,
	PE_DATAREL = 0x30,
	PE_INDIRECT = 0x80,
	/* The one layout of .eh_frame_hdr's table that linkers write. */
	PE_TABLE = 0x3b,
};

uint64_t vt_read_uleb(const uint8_t **at, const uint8_t *end)
{
	uint64_t value = 0;
	unsigned shift = 0;
	while (*at < end) {
		uint8_t byte = *(*at)++;
		if (shift < 64)
			value |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
		if (!(byte & 0x80))
			break;
	}
	return value;
}

int64_t vt_read_sleb(const uint8_t **at, const uint8_t *end)
{
	uint64_t value = 0;
	unsigned shift = 0;
	uint8_t byte = 0;
	while (*at < end) {
		byte = *(*at)++;
		if (shift < 64)
			value |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
		if (!(byte & 0x80))
			break;
	}
	if (shift < 64 && (byte & 0x40))
		value |= ~(uint64_t)0 << shift;
	return (int64_t)value;
}

uint64_t vt_read_fixed(const uint8_t **at, const uint8_t *end, unsigned bytes)
{
	if ((size_t)(end - *at) < bytes) {
		*at = end;
		return 0;
	}
	uint64_t value = 0;
	memcpy(&value, *at, bytes); /* little-endian, as both targets are */
	*at += bytes;
	return value;
}

static uint64_t sign_extend(uint64_t value, unsigned bytes)
{
	unsigned shift = 64 - 8 * bytes;
	return (uint64_t)((int64_t)(value << shift) >> shift);
}

static uint64_t read_format(const uint8_t **at, const uint8_t *end, uint8_t format)
{
	switch (format) {
	case 0x00: return vt_read_fixed(at, end, sizeof(uintptr_t));
	case PE_ULEB: return vt_read_uleb(at, end);
	case PE_UDATA2: return vt_read_fixed(at, end, 2);
	case PE_UDATA4: return vt_read_fixed(at, end, 4);
	case PE_UDATA8: return vt_read_fixed(at, end, 8);
	case PE_SLEB: return (uint64_t)vt_read_sleb(at, end);
	case PE_SDATA2: return sign_extend(vt_read_fixed(at, end, 2), 2);
	case PE_SDATA4: return sign_extend(vt_read_fixed(at, end, 4), 4);
	case PE_SDATA8: return vt_read_fixed(at, end, 8);
	default: *at = end; return 0;
	}
}

uintptr_t vt_read_pointer(const uint8_t **at, const uint8_t *end, uint8_t encoding,
			  uintptr_t data_base)
{
	if (encoding == PE_OMIT)
		return 0;
	uintptr_t place = (uintptr_t)*at;
	uintptr_t value = (uintptr_t)read_format(at, end, encoding & PE_FORMAT);
	switch (encoding & PE_APPLY) {
	case 0: break;
	case PE_PCREL: value += place; break;
	case PE_DATAREL: value += data_base; break;
	default: *at = end; return 0; /* textrel, funcrel: not in .eh_frame */
	}
	if ((encoding & PE_INDIRECT) && value)
		value = *(const uintptr_t *)value;
	return value;
}

/* An entry's length word; false for the 64-bit form and the terminator. */
static bool entry_bounds(const uint8_t *entry, const uint8_t **body, const uint8_t **end)
{
	uint32_t length;
	memcpy(&length, entry, 4);
	if (length == 0 || length == 0xffffffffu)
		return false;
	*body = entry + 4;
	*end = *body + length;
	return true;
}

/* The augmentation letters this walk meets: z, R, P, L, S; 'B' and 'G'
 * (aarch64) carry no data. Anything else is not understood. */
static bool read_augmentation(const char *letters, const uint8_t **at, const uint8_t *end,
			      struct vt_cie *cie)
{
	if (letters[0] != 'z')
		return letters[0] == '\0';
	cie->augmented = true;
	uint64_t length = vt_read_uleb(at, end);
	const uint8_t *data_end = *at + length;
	for (const char *letter = letters + 1; *letter; letter++) {
		switch (*letter) {
		case 'R': cie->pointer_encoding = *(*at)++; break;
		case 'L': (*at)++; break;
		case 'P': {
			uint8_t encoding = *(*at)++;
			read_format(at, end, encoding & PE_FORMAT);
			break;
		}
		case 'S': cie->signal_frame = true; break;
		case 'B':
		case 'G': break;
		default: return false;
		}
	}
	*at = data_end;
	return *at <= end;
}

static bool parse_cie(const uint8_t *entry, struct vt_cie *cie)
{
	const uint8_t *at, *end;
	if (!entry_bounds(entry, &at, &end) || vt_read_fixed(&at, end, 4) != 0)
		return false;
	uint8_t version = *at++;
	const char *letters = (const char *)at;
	size_t count = strnlen(letters, (size_t)(end - at));
	at += count + 1;
	if ((version != 1 && version != 3) || at > end || strstr(letters, "eh"))
		return false;
	*cie = (struct vt_cie){.pointer_encoding = 0};
	cie->code_alignment = vt_read_uleb(&at, end);
	cie->data_alignment = vt_read_sleb(&at, end);
	cie->return_register = version == 1 ? *at++ : vt_read_uleb(&at, end);
	if (!read_augmentation(letters, &at, end, cie))
		return false;
	cie->instructions = at;
	cie->instructions_end = end;
	return true;
}

static bool parse_fde(const uint8_t *entry, struct vt_fde *fde)
{
	const uint8_t *at, *end;
	if (!entry_bounds(entry, &at, &end))
		return false;
	const uint8_t *cie_field = at;
	uint32_t cie_offset = (uint32_t)vt_read_fixed(&at, end, 4);
	if (cie_offset == 0 || !parse_cie(cie_field - cie_offset, &fde->cie))
		return false;
	uint8_t encoding = fde->cie.pointer_encoding;
	fde->start = vt_read_pointer(&at, end, encoding, 0);
	fde->end = fde->start + (uintptr_t)read_format(&at, end, encoding & PE_FORMAT);
	if (fde->cie.augmented) {
		uint64_t length = vt_read_uleb(&at, end);
		at += length;
	}
	fde->instructions = at;
	fde->instructions_end = end;
	return at <= end;
}

/* Binary search of .eh_frame_hdr's sorted table for pc's entry. */
static bool search_header(const uint8_t *header, uintptr_t pc, struct vt_fde *fde)
{
	if (!header || header[0] != 1 || header[3] != PE_TABLE)
		return false;
	const uint8_t *at = header + 4;
	const uint8_t *end = at + 16;
	vt_read_pointer(&at, end, header[1], (uintptr_t)header);
	uint64_t count = vt_read_pointer(&at, end, header[2], (uintptr_t)header);
	const int32_t *table = (const int32_t *)at;
	uintptr_t base = (uintptr_t)header;
	uint64_t low = 0, high = count;
	while (low < high) {
		uint64_t middle = low + (high - low) / 2;
		if (base + (intptr_t)table[2 * middle] <= pc)
			low = middle + 1;
		else
			high = middle;
	}
	if (low == 0)
		return false;
	const uint8_t *entry = (const uint8_t *)(base + (intptr_t)table[2 * (low - 1) + 1]);
	return parse_fde(entry, fde) && pc >= fde->start && pc < fde->end;
}

#ifndef DLFO_STRUCT_HAS_EH_DBASE
struct phdr_search {
	uintptr_t pc;
	const uint8_t *header;
};

static int find_header(struct dl_phdr_info *info, size_t size, void *context)
{
	(void)size;
	struct phdr_search *search = context;
	const uint8_t *header = NULL;
	bool inside = false;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + p->p_vaddr;
		if (p->p_type == PT_LOAD && search->pc >= start && search->pc < start + p->p_memsz)
			inside = true;
		else if (p->p_type == PT_GNU_EH_FRAME)
			header = (const uint8_t *)start;
	}
	if (!inside)
		return 0;
	search->header = header;
	return 1;
}

#endif

#ifdef DLFO_STRUCT_HAS_EH_DBASE
/* glibc 2.35 and later: lock-free and safe in a signal handler. */
static const uint8_t *header_for(uintptr_t pc)
{
	struct dl_find_object found;
	if (_dl_find_object((void *)pc, &found) == 0)
		return found.dlfo_eh_frame;
	return NULL;
}
#else
/* Older glibc: the loader's list, under its lock. */
static const uint8_t *header_for(uintptr_t pc)
{
	struct phdr_search search = {pc, NULL};
	dl_iterate_phdr(find_header, &search);
	return search.header;
}
#endif

bool vt_unwind_find_fde(uintptr_t pc, struct vt_fde *fde)
{
	return search_header(header_for(pc), pc, fde);
}
