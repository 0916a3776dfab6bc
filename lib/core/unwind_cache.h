/* Unwind rules by code address, shared by every thread: a fixed table of
 * slots, each guarded by its own sequence number, so a lookup is a few
 * loads and no lock, and a thread that meets a slot being written treats
 * it as a miss. Entries carry the generation of loaded code they were
 * found in (stack_capture.c counts unloads): after a dlclose, an address
 * another object may now occupy never gets the old object's rule. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "unwind_rule.h"

bool vt_unwind_cache_get(uintptr_t pc, uint32_t generation, struct vt_unwind_rule *rule);
/* Keeps the rule unless another thread is writing the same slot. */
void vt_unwind_cache_put(uintptr_t pc, uint32_t generation, struct vt_unwind_rule rule);
