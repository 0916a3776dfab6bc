/* Call stacks, de-duplicated: the same frames with the same tag always get
 * the same id, from 1 up. The tag is part of what an id stands for, so all
 * of a stack's bytes have one tag: one helper called under tags "a" and "b"
 * is two stacks with the same frames. Lookups that hit this thread's cache take no lock; a miss
 * locks one of 64 shards. Records never move or change once published, so readers need no lock
 * either. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define VT_STACK_NONE      0
#define VT_MAX_STACK_DEPTH 128 /* native frames captured */
/* Frames one stack may hold: the native ones and, where they ran Python,
 * up to as many Python frames again. */
#define VT_MAX_STACK_FRAMES (2 * VT_MAX_STACK_DEPTH)

/* The id of these frames with tag, the allocation's tag as known before
 * any module rule (VT_TAG_UNTAGGED for none); VT_STACK_NONE for depth 0 or
 * when no host memory is left. */
uint32_t vt_stack_intern(const uintptr_t *frames, unsigned depth, uint32_t tag);
/* The frames of id (NULL and 0 for an unknown id). */
unsigned vt_stack_frames(uint32_t id, const uintptr_t **frames);
/* One past the largest id handed out so far. */
uint32_t vt_stack_limit(void);

/* The tag every allocation at id has: the tag it was interned with, or
 * for VT_TAG_UNTAGGED the module rule's for its frames (rules.h), decided
 * by the first call and kept, so that it stays one tag; VT_TAG_UNTAGGED
 * for an unknown id. That first call may take the loader's lock (dladdr):
 * never make it holding a lock a CUDA call takes. */
uint32_t vt_stack_tag(uint32_t id);
/* For a retag: the stack of id's frames with *tag, and *tag made the tag
 * it gives (vt_stack_tag); id and *tag as they were for VT_STACK_NONE or
 * when no host memory (or no tracer stack to run the rules on) is left. */
uint32_t vt_stack_with_tag(uint32_t id, uint32_t *tag);

/* fork (lifecycle/fork.c): every shard lock is held across it, so a child
 * never inherits one taken; none is taken from a handler that interrupted
 * the tracer on this thread. */
void vt_stacks_fork_prepare(void);
void vt_stacks_fork_parent(void);
void vt_stacks_fork_child(void);
