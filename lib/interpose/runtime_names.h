/* The runtime API hooks (runtime_names.c), which name the driver call
 * beneath each runtime call. */
#pragma once

/* The runtime hook (runtime_names.c) for a runtime function that a lookup
 * on a handle of libcudart found (Python's ctypes, a plugin that dlopens
 * the runtime): the very function the hook forwards to, so the call is the
 * same and is named as the runtime's. NULL for any other name or function. */
void *vt_runtime_hook_for(const char *name, const void *found);
