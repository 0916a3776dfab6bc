/* Recording: the one way an event reaches this process's tracker (call.c
 * hands every event here), and what is done once the tracker has it: the
 * device described on its first event, the NVML view told of a free before
 * it and of a new peak after, the watermark warning said. No function
 * pointer on the way: the path is call.c, here, core/tracker.c. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "../core/event.h"
#include "../core/ledger.h"

/* Records event, any but a free, unless this process does not trace (a
 * fork's child that stopped following). Every event comes from inside a
 * caught call, which activated the tracer on entering: none is activated
 * here. */
void vt_record(const struct vt_event *event);
/* Records a free, named by its address and the family of the call that
 * made it (vt_tracker_free): nothing else of an event reaches a free. */
void vt_record_free(uint64_t address, enum vt_kind family);
/* A call is about to give device memory back, which is recorded only once
 * it returns (an unmap, a handle's release, a graph memory trim): a peak
 * the device view has not read yet is read now, while it stands. */
void vt_record_before_giving_back(void);
/* Moves a live allocation to tag; false when it is not live or nothing is
 * traced. */
bool vt_record_retag(uint64_t address, uint32_t tag);
/* Visits every live allocation, one device locked at a time: visit must be
 * quick and call nothing of CUDA's or the tracer's. */
void vt_record_each_live(void (*visit)(const struct vt_allocation *, void *), void *context);
