#include "event.h"

const char *vt_kind_name(enum vt_kind kind)
{
	switch (kind) {
	case VT_KIND_DEVICE: return "device";
	case VT_KIND_ASYNC: return "async";
	case VT_KIND_MANAGED: return "managed";
	case VT_KIND_VMM: return "vmm";
	case VT_KIND_ARRAY: return "array";
	case VT_KIND_MULTICAST: return "multicast";
	case VT_KIND_EXTERNAL: return "external";
	case VT_KIND_POOL_IMPORT: return "pool_import";
	case VT_KIND_GRAPH: return "graph";
	case VT_KIND_IPC_IMPORT: return "ipc_import";
	case VT_KIND_PINNED_HOST: return "pinned_host";
	case VT_KIND_HOST_REGISTERED: return "host_registered";
	case VT_KIND_COUNT: break;
	}
	return "unknown";
}
