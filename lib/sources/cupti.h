/* The CUPTI source: CUPTI's driver-API callbacks for every observed entry
 * point, recorded through the same observers as the hooks, and its
 * resource domain (contexts, modules), kept as events for the report. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../config.h"

#define VT_CUPTI_MAX_EVENTS 1024

enum vt_resource_kind {
	VT_RESOURCE_CONTEXT_CREATED,
	VT_RESOURCE_CONTEXT_DESTROYING,
	VT_RESOURCE_MODULE_LOADED,
	VT_RESOURCE_MODULE_UNLOADING,
};

struct vt_resource_event {
	uint64_t at_ns; /* since the tracer started */
	enum vt_resource_kind kind;
	int device;     /* VT_UNKNOWN_DEVICE when the driver cannot say */
	uint64_t bytes; /* a module's image size; 0 otherwise */
};

struct vt_cupti_status {
	bool subscribed;
	char note[160]; /* why not, when CUPTI was asked for and is not used */
};

/* Subscribes when sources asks for CUPTI; on any failure (another
 * subscriber holds CUPTI: error 39) warns once and leaves the hooks
 * recording. Sets which sources record. Called once activation is done;
 * start_ns is when the tracer started, by vt_clock_ns. */
void vt_cupti_start(enum vt_sources sources, uint64_t start_ns);

struct vt_cupti_view {
	struct vt_cupti_status status;
	struct vt_resource_event events[VT_CUPTI_MAX_EVENTS];
	size_t count;
	uint64_t dropped; /* events past VT_CUPTI_MAX_EVENTS */
};

/* A copy of what was seen so far; takes no lock and allocates nothing. */
void vt_cupti_read(struct vt_cupti_view *out);

const char *vt_resource_kind_name(enum vt_resource_kind kind);

/* Forgets the events, for the child after fork; the subscription stays. */
void vt_cupti_reset(void);
