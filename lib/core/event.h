/* The one interface between sources and the core: what happened to which
 * bytes, on which device, through which call. */
#pragma once

#include <stdint.h>

enum vt_op {
	VT_OP_ALLOC,
	VT_OP_FREE,
	VT_OP_ALLOC_FAILED,
	/* A standing reservation the driver reports as a size (graph memory):
	 * it now holds bytes, 0 when none; address keys it. */
	VT_OP_LEVEL,
	/* A context was made on the device: it is in the report. */
	VT_OP_CONTEXT,
};

/* Kinds that occupy a device's memory come first; host kinds after
 * VT_KIND_FIRST_HOST are reported beside the device, never in its totals. */
enum vt_kind {
	VT_KIND_DEVICE,
	VT_KIND_ASYNC,
	VT_KIND_MANAGED,
	VT_KIND_VMM,         /* physical memory of cuMemCreate, counted once per handle */
	VT_KIND_ARRAY,       /* CUDA arrays and mipmapped arrays, keyed by handle */
	VT_KIND_IPC_IMPORT,  /* another process's memory, opened by IPC: shown, not owned */
	VT_KIND_MULTICAST,   /* a multicast object: its memory is what is bound to it */
	VT_KIND_EXTERNAL,    /* a buffer of memory another API allocated: shown, not owned */
	VT_KIND_POOL_IMPORT, /* another process's pool allocation: shown, not owned */
	VT_KIND_GRAPH,       /* memory the driver reserves for graph allocation nodes */
	VT_KIND_PINNED_HOST,
	VT_KIND_HOST_REGISTERED, /* the program's own pages, pinned: shown, not new memory */
	VT_KIND_COUNT,
	VT_KIND_FIRST_HOST = VT_KIND_PINNED_HOST,
};

/* Host kinds are recorded against this pseudo-device. */
#define VT_HOST_DEVICE (-1)

/* The key of a device's graph memory reservation: no allocation's address. */
#define VT_GRAPH_LEVEL_ADDRESS(device) (UINT64_MAX - (uint64_t)(device))

struct vt_event {
	enum vt_op op;
	enum vt_kind kind;
	int device;             /* CUDA ordinal, or VT_HOST_DEVICE */
	uint64_t address;       /* 0 for a failed allocation */
	uint64_t bytes;         /* requested bytes; unused for a free */
	int error;              /* CUresult of a failed allocation */
	const char *api;        /* outermost call, a string with static lifetime */
	const char *driver_api; /* the driver entry point that did the work */
	uint32_t tag;           /* category tag; VT_TAG_UNTAGGED when none */
	uint32_t stack;         /* interned call stack; VT_STACK_NONE when off */
};

/* Where a driver call is seen: by its symbol hook, or by a CUPTI callback
 * from inside the driver. */
enum vt_source {
	VT_SOURCE_HOOKS = 1,
	VT_SOURCE_CUPTI = 2,
};

const char *vt_kind_name(enum vt_kind kind);
static inline int vt_kind_is_host(enum vt_kind kind)
{
	return kind >= VT_KIND_FIRST_HOST;
}

/* Whether a free of the family by ends an allocation of the kind held. A
 * free names its family by the call that made it: cuMemFree and
 * cuMemFreeAsync (device), cuArrayDestroy and cuMipmappedArrayDestroy
 * (array), cuMemRelease and cuMemUnmap (vmm), cuMemFreeHost (pinned_host),
 * unregistering (host_registered), closing an import (ipc_import). CUDA
 * refuses a call of one family on another's memory, an array handle given
 * to cudaFree say, and the memory stays. */
static inline int vt_kind_freed_by(enum vt_kind held, enum vt_kind by)
{
	switch (by) {
	case VT_KIND_ARRAY: return held == VT_KIND_ARRAY || held == VT_KIND_EXTERNAL;
	case VT_KIND_VMM: return held == VT_KIND_VMM || held == VT_KIND_MULTICAST;
	case VT_KIND_IPC_IMPORT:
	case VT_KIND_PINNED_HOST:
	case VT_KIND_HOST_REGISTERED: return held == by;
	default:
		return held == VT_KIND_DEVICE || held == VT_KIND_ASYNC || held == VT_KIND_MANAGED ||
		       held == VT_KIND_EXTERNAL || held == VT_KIND_POOL_IMPORT ||
		       held == VT_KIND_GRAPH;
	}
}

/* Whether a kind is memory the process allocated, counted in its owner's
 * totals and peak; other kinds are only shown. */
static inline int vt_kind_is_counted(enum vt_kind kind)
{
	const unsigned shown_only = 1u << VT_KIND_HOST_REGISTERED | 1u << VT_KIND_IPC_IMPORT |
				    1u << VT_KIND_MULTICAST | 1u << VT_KIND_EXTERNAL |
				    1u << VT_KIND_POOL_IMPORT;
	return !(shown_only >> kind & 1);
}
