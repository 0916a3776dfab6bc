/* The real functions behind the ones vramtrace exports. Never call dlsym
 * from inside the library: that is vramtrace's own. */
#pragma once

void *vt_real_dlsym(void *handle, const char *name);
/* The real dlsym itself, resolved on first use. */
void *vt_real_dlsym_function(void);
/* The driver library, if the process has loaded it; never loads it. */
void *vt_driver_handle(void);
/* The driver whose functions vramtrace wraps, by a handle of its own
 * namespace: vt_driver_handle's answer where none is in the main one. */
void vt_driver_met(void *handle);
/* name from the objects after vramtrace, else from a loaded driver. */
void *vt_real_next(const char *name);
