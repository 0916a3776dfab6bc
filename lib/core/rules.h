/* Module rules: with no explicit tag, the first frame outside CUDA's own
 * libraries and vramtrace names the owner by its library: cuBLAS's
 * allocations are "cublas", NCCL's "nccl", PyTorch's caching allocator's
 * "pytorch". */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Loads the built-in table, then user rules in front of it: "pattern=tag"
 * items separated by ';' or newlines ('#' starts a comment line), given
 * inline or, when text names a readable file, in that file. False
 * (built-ins kept) when text is bad. */
bool vt_rules_init(const char *text);
/* The user's rules past the first 1024, which are not used. */
unsigned vt_rules_left_out(void);
/* The tag for the module at path (matched on its file name), or 0. */
uint32_t vt_rules_tag_for_module(const char *path);
/* The tag for a stack: its first frame outside CUDA and own_module. */
uint32_t vt_rules_tag_for_stack(const uintptr_t *frames, unsigned depth);
