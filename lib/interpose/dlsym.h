/* Interposing dlsym and dlopen (dlsym.c, with dlsym_entry.S): the way in
 * to the driver for every library that loads it. */
#pragma once

/* The C half of the exported dlsym (dlsym_entry.S), for a CUDA name and
 * every handle but RTLD_NEXT; caller is the address dlsym returns to. */
void *vt_dlsym_hook(void *handle, const char *name, const void *caller);
/* dlopen's C half (dlsym_entry.S): looks at the flags, returns the real
 * dlopen. */
void *vt_dlopen_prepare(const char *path, int flags);
/* At activation: the RTLD_DEEPBIND load seen before it, if any, is said. */
void vt_dlopen_warn_deepbind(void);
