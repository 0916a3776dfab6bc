#include "views.h"

const char *vt_resource_kind_name(enum vt_resource_kind kind)
{
	switch (kind) {
	case VT_RESOURCE_CONTEXT_CREATED: return "context_created";
	case VT_RESOURCE_CONTEXT_DESTROYING: return "context_destroying";
	case VT_RESOURCE_MODULE_LOADED: return "module_loaded";
	case VT_RESOURCE_MODULE_UNLOADING: return "module_unloading";
	}
	return "unknown";
}
