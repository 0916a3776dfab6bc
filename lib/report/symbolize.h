/* Names for return addresses, asked only for the stacks a report prints:
 * function (demangled when the program carries a C++ runtime), module,
 * offset in it, and file:line where debug information exists. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct vt_frame {
	uintptr_t pc;
	char function[512]; /* "" when unknown */
	char module[512];   /* the object's path, "" when unknown */
	uint64_t offset;    /* pc - the module's load address */
	char file[512];     /* "" without debug information */
	int line;           /* 0 without debug information */
	bool python;        /* a Python frame: function is its qualified name */
	bool inlined;       /* compiled into the next frame's function, at its line */
};

/* The most frames one return address stands for: the functions inlined at
 * it and the function it is in. */
#define VT_INLINE_MAX 8

struct vt_symbolizer;

/* Opens libdw on this process; falls back to the dynamic symbol table
 * (dladdr) when libdw is missing. Never NULL. */
struct vt_symbolizer *vt_symbolizer_open(void);
/* Loads what symbolizing needs ahead of time; done as the tracer starts. */
void vt_symbolizer_prepare(void);
/* The function the return address pc is in, at the line of the call. */
void vt_symbolize(struct vt_symbolizer *symbolizer, uintptr_t pc, struct vt_frame *out);
/* The frames pc stands for, innermost first, at most max (at least one):
 * each function the compiler inlined there (inlined set), at its line,
 * then the one it was inlined into, at the line of that call. */
unsigned vt_symbolize_chain(struct vt_symbolizer *symbolizer, uintptr_t pc, struct vt_frame *out,
			    unsigned max);
void vt_symbolizer_close(struct vt_symbolizer *symbolizer);
