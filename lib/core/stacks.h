/* Call stacks, de-duplicated: the same frames always get the same id, from
 * 1 up. Lookups that hit this thread's cache take no lock; a miss locks one
 * of 64 shards. Records never move or change once published, so readers
 * need no lock either. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define VT_STACK_NONE      0
#define VT_MAX_STACK_DEPTH 128 /* native frames captured */
/* Frames one stack may hold: the native ones and, where they ran Python,
 * up to as many Python frames again. */
#define VT_MAX_STACK_FRAMES (2 * VT_MAX_STACK_DEPTH)

/* The id of these frames; VT_STACK_NONE for depth 0 or when no host memory
 * is left. */
uint32_t vt_stack_intern(const uintptr_t *frames, unsigned depth);
/* The frames of id (NULL and 0 for an unknown id). */
unsigned vt_stack_frames(uint32_t id, const uintptr_t **frames);
/* One past the largest id handed out so far. */
uint32_t vt_stack_limit(void);

/* A per-stack value computed once by its first user (the module rule's
 * tag), kept with the record. */
bool vt_stack_get_note(uint32_t id, uint32_t *note);
void vt_stack_set_note(uint32_t id, uint32_t note);

/* fork (lifecycle/fork.c): every shard lock is held across it, so a child
 * never inherits one taken; none is taken from a handler that interrupted
 * the tracer on this thread. */
void vt_stacks_fork_prepare(void);
void vt_stacks_fork_parent(void);
void vt_stacks_fork_child(void);
