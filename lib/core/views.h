/* What the device views hold, as plain data: the sources (the driver's
 * answers, NVML, pools, graph memory, CUPTI's resource events) fill these,
 * and the report writes them, without knowing where they came from. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VT_UNKNOWN_DEVICE (-2)

struct vt_device_info {
	bool known;
	char name[256];
	char pci_bus_id[32];
	char uuid[48]; /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi writes it */
	uint64_t capacity;
};

struct vt_cuda_info {
	int driver_version;  /* 0 when unknown */
	int runtime_version; /* 0 when the runtime is static or absent */
	int device_count;
};

/* Reserved beside used, current and high-water, as the driver reports
 * them for a stream-ordered pool or a device's graph memory. */
struct vt_reserve_figures {
	uint64_t reserved, reserved_high, used, used_high;
};

struct vt_reserve_view {
	uint64_t reserved, reserved_peak;
	uint64_t used, used_peak;
};

/* The driver's high-water marks may have been reset by the program, so
 * the peaks are the most of every reading. */
static inline void vt_reserve_update(struct vt_reserve_view *view,
				     const struct vt_reserve_figures *figures)
{
	uint64_t reserved_high = figures->reserved > figures->reserved_high
					 ? figures->reserved
					 : figures->reserved_high;
	uint64_t used_high =
		figures->used > figures->used_high ? figures->used : figures->used_high;
	view->reserved = figures->reserved;
	view->used = figures->used;
	if (reserved_high > view->reserved_peak)
		view->reserved_peak = reserved_high;
	if (used_high > view->used_peak)
		view->used_peak = used_high;
}

#define VT_MAX_POOLS 64

struct vt_pool_view {
	int device;
	bool destroyed;
	struct vt_reserve_view memory;
};

struct vt_graph_view {
	bool sampled;
	struct vt_reserve_view memory;
	uint64_t allocation_nodes; /* the program's: added, or captured allocations */
};

#define VT_VIEW_DEVICES 64

struct vt_device_view {
	bool sampled;
	bool per_process; /* from this process's entry, not the device total */
	uint64_t samples;
	uint64_t peak_used;       /* the highest used bytes seen */
	uint64_t tracked_at_best; /* the highest tracked bytes at a sample */
	uint64_t used_at_best;    /* used bytes at that same sample */
};

struct vt_nvml_status {
	bool available;
	char reason[128]; /* why not, when not */
};

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

struct vt_cupti_view {
	struct vt_cupti_status status;
	struct vt_resource_event events[VT_CUPTI_MAX_EVENTS];
	size_t count;
	uint64_t dropped; /* events past VT_CUPTI_MAX_EVENTS */
};

const char *vt_resource_kind_name(enum vt_resource_kind kind);
