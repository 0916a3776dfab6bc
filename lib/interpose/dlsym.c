/* Interposing dlsym: libcudart (shared or static), cuBLAS, NCCL and every
 * other loader of the driver fetch cuGetProcAddress_v2 this way, so this is
 * where vramtrace gets between the program and the driver. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../config.h"
#include "../core/sink.h"
#include "../log.h"
#include "hooks.h"
#include "../sources/real.h"

/* Called by the dlsym entry for every handle but RTLD_NEXT. Names that are
 * not the driver's take the fast path: no lock, no allocation. */
__attribute__((visibility("hidden"))) void *vt_dlsym_hook(void *handle, const char *name)
{
	void *found = vt_real_dlsym(handle, name);
	if (!found || !name || name[0] != 'c' || name[1] != 'u')
		return found;
	return vt_hooks_wrap_symbol(name, found);
}

typedef void *(*dlopen_fn)(const char *, int);

static _Atomic(dlopen_fn) real_dlopen;
static atomic_bool warned_deepbind;

static dlopen_fn resolve_real_dlopen(void)
{
	static const char *const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17",
					       "GLIBC_2.1"};
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		dlopen_fn found = (dlopen_fn)dlvsym(RTLD_NEXT, "dlopen", versions[i]);
		if (found)
			return found;
	}
	return NULL;
}

/* A library loaded with RTLD_DEEPBIND binds to its own dependencies first,
 * its own copy of dlsym's callers included, so its CUDA calls may bypass
 * vramtrace: said once, with the summary, and only in a process that uses
 * CUDA (the first such load is kept until then). */
static char deepbind_path[256];

static void warn_deepbind(const char *path)
{
	if (vt_config()->summary && !atomic_exchange(&warned_deepbind, true))
		vt_warn("%s was loaded with RTLD_DEEPBIND: CUDA allocations it makes through "
			"libraries of its own may not be traced",
			path);
}

void vt_dlopen_warn_deepbind(void)
{
	if (deepbind_path[0])
		warn_deepbind(deepbind_path);
}

__attribute__((visibility("hidden"))) void *vt_dlopen_prepare(const char *path, int flags)
{
	if (flags & RTLD_DEEPBIND) {
		const char *name = path ? path : "a library";
		if (vt_sink.active())
			warn_deepbind(name);
		else if (!deepbind_path[0])
			snprintf(deepbind_path, sizeof(deepbind_path), "%s", name);
	}
	dlopen_fn found = atomic_load_explicit(&real_dlopen, memory_order_acquire);
	if (!found) {
		found = resolve_real_dlopen();
		atomic_store_explicit(&real_dlopen, found, memory_order_release);
	}
	return (void *)found;
}
