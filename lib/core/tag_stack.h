/* Each thread's stacks of open tags, one per source. The explicit API
 * outranks NVTX ranges; module rules and "untagged" come after both and are
 * decided elsewhere. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum vt_tag_source {
	VT_TAG_FROM_API,
	VT_TAG_FROM_NVTX,
	VT_TAG_SOURCES,
};

#define VT_TAG_STACK_DEPTH 64

/* Deeper pushes are counted so pops still match, but keep the tag at
 * VT_TAG_STACK_DEPTH. */
void vt_tag_push(enum vt_tag_source source, uint32_t tag);
/* False when nothing was pushed on this thread from source. */
bool vt_tag_pop(enum vt_tag_source source);
/* The innermost tag from source, or VT_TAG_UNTAGGED. */
uint32_t vt_tag_top(enum vt_tag_source source);
/* The innermost API tag, else the innermost NVTX tag, else untagged. */
uint32_t vt_tag_current(void);
