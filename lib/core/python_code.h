/* Python frames in a stack: a frame is stored as a tagged word (the code
 * object's entry in a table of copies, and the instruction it was at), and
 * resolved to (qualified name, file, line) only when a report is written,
 * from the copy taken the first time the code object was seen: a code
 * object may be freed, and its address reused, before the report. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VT_PY_FRAME_BIT ((uintptr_t)1 << 63)

static inline bool vt_py_is_frame(uintptr_t frame)
{
	return (frame & VT_PY_FRAME_BIT) != 0;
}

static inline uintptr_t vt_py_frame(uint32_t code, uint32_t instruction)
{
	return VT_PY_FRAME_BIT | ((uintptr_t)code << 32) | instruction;
}

/* A Python frame's code object id. */
static inline uint32_t vt_py_frame_code(uintptr_t frame)
{
	return (uint32_t)((frame & ~VT_PY_FRAME_BIT) >> 32);
}

/* The line tables CPython has used. */
enum vt_py_line_format {
	VT_PY_LOCATIONS,     /* 3.11 on: Objects/locations.md; by code unit */
	VT_PY_LINETABLE_310, /* 3.10's co_linetable; by byte offset */
	VT_PY_LNOTAB,        /* 3.9's co_lnotab; by byte offset */
};

/* A code object's copy: what resolving its frames needs. */
struct vt_py_code {
	const char *qualname;
	const char *filename;
	int first_line;
	enum vt_py_line_format format;
	const uint8_t *line_table;
	size_t line_table_size;
};

/* Copies code and returns its id, or UINT32_MAX when out of memory or ids. */
uint32_t vt_py_code_add(const struct vt_py_code *code);
/* The copy of id; false for an unknown id. */
bool vt_py_code_get(uint32_t id, struct vt_py_code *out);
/* The source line of the instruction at instruction (a code unit, or a
 * byte offset before 3.11) in code, or code->first_line when the table says
 * none. */
int vt_py_code_line(const struct vt_py_code *code, uint32_t instruction);
/* A frame's function, file and line. */
bool vt_py_frame_resolve(uintptr_t frame, const char **qualname, const char **filename, int *line);
