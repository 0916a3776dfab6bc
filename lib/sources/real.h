/* The real functions behind the ones vramtrace exports. Never call dlsym
 * from inside the library: that is vramtrace's own. */
#pragma once

void *vt_real_dlsym(void *handle, const char *name);
/* The real dlsym itself, resolved on first use. */
void *vt_real_dlsym_function(void);
/* The driver library, if the process has loaded it; never loads it. */
void *vt_driver_handle(void);
/* name from the objects after vramtrace, else from a loaded driver. */
void *vt_real_next(const char *name);

/* The C half of the exported dlsym (dlsym_entry.S), for a CUDA name and
 * every handle but RTLD_NEXT; caller is the address dlsym returns to. */
void *vt_dlsym_hook(void *handle, const char *name, const void *caller);
/* dlopen's C half (dlsym_entry.S): looks at the flags, returns the real
 * dlopen. */
void *vt_dlopen_prepare(const char *path, int flags);
/* At activation: the RTLD_DEEPBIND load seen before it, if any, is said. */
void vt_dlopen_warn_deepbind(void);
