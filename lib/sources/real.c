/* The real dlsym, and what it finds: the functions behind the ones
 * vramtrace exports. dlsym itself is vramtrace's own (dlsym.c), so the real
 * one is reached through dlvsym. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

#include "real.h"

typedef void *(*dlsym_fn)(void *, const char *);

static _Atomic(dlsym_fn) real_dlsym;

/* dlvsym is not interposed, so this reaches libc's dlsym. The version
 * names differ by architecture; try the old baseline first, as old programs
 * bind to it. */
static dlsym_fn resolve_real_dlsym(void)
{
	static const char *const versions[] = {"GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.34",
					       "GLIBC_2.0"};
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		dlsym_fn found = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
		if (found)
			return found;
	}
	return NULL;
}

__attribute__((visibility("hidden"))) void *vt_real_dlsym_function(void)
{
	dlsym_fn found = atomic_load_explicit(&real_dlsym, memory_order_acquire);
	if (!found) {
		found = resolve_real_dlsym();
		atomic_store_explicit(&real_dlsym, found, memory_order_release);
	}
	return (void *)found;
}

void *vt_real_dlsym(void *handle, const char *name)
{
	dlsym_fn found = (dlsym_fn)vt_real_dlsym_function();
	return found ? found(handle, name) : NULL;
}

static _Atomic(void *) met_driver;

void vt_driver_met(void *handle)
{
	atomic_store_explicit(&met_driver, handle, memory_order_release);
}

/* A driver the program loaded with dlmopen into a namespace of its own is
 * not in the main one: without the one met, the device of each allocation
 * would be unknown and every event dropped. */
void *vt_driver_handle(void)
{
	static _Atomic(void *) handle;
	void *found = atomic_load_explicit(&handle, memory_order_acquire);
	if (!found) {
		found = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
		if (!found)
			found = atomic_load_explicit(&met_driver, memory_order_acquire);
		atomic_store_explicit(&handle, found, memory_order_release);
	}
	return found;
}

void *vt_real_next(const char *name)
{
	void *found = vt_real_dlsym(RTLD_NEXT, name);
	if (!found && vt_driver_handle())
		found = vt_real_dlsym(vt_driver_handle(), name);
	return found;
}
