/* Events and live allocations, between the sources and the tracker. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "../core/event.h"
#include "../core/ledger.h"

void vt_library_record(const struct vt_event *event);
bool vt_library_retag(uint64_t address, uint32_t tag);
void vt_library_each_live(void (*visit)(const struct vt_allocation *, void *), void *context);
