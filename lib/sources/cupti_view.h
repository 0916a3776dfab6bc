/* What CUPTI told, kept for the report: whether vramtrace subscribed (or
 * why not), and its resource events (contexts made and destroyed, modules
 * loaded and unloaded). The CUPTI callbacks (interpose/cupti.c) write it;
 * collect reads it. */
#pragma once

#include <stdint.h>

#include "../core/views.h"

/* At every activation: events are timed from start_ns (vt_clock_ns). */
void vt_cupti_view_start(uint64_t start_ns);
/* How subscribing went, once it is known. */
void vt_cupti_view_set_status(const struct vt_cupti_status *status);
/* One resource event, from a CUPTI callback: no lock, no allocation; past
 * VT_CUPTI_MAX_EVENTS it only counts as dropped. The device is asked of
 * the driver. */
void vt_cupti_view_log(enum vt_resource_kind kind, void *context, uint64_t bytes);

/* A copy of what was seen so far; takes no lock and allocates nothing. */
void vt_cupti_read(struct vt_cupti_view *out);
/* Forgets the events, for the child after fork; the status stays, as the
 * subscription does. */
void vt_cupti_reset(void);
