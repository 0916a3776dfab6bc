/* Interposing dlsym: libcudart (shared or static), cuBLAS, NCCL and every
 * other loader of the driver fetch cuGetProcAddress_v2 this way, so this is
 * where vramtrace gets between the program and the driver. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../config.h"
#include "../sources/tracking.h"
#include "dlsym.h"
#include "../log.h"
#include "hooks.h"
#include "runtime_names.h"
#include "../sources/real.h"

/* vramtrace's own exports are found first by any lookup that reaches the
 * global scope; they are only a way into the real library, so they count as
 * found where that library is loaded. */
static bool is_own(const void *address)
{
	static _Atomic(void *) own_base;
	Dl_info info;
	void *base = atomic_load_explicit(&own_base, memory_order_relaxed);
	if (!base && dladdr((const void *)vt_dlsym_hook, &info)) {
		base = info.dli_fbase;
		atomic_store_explicit(&own_base, base, memory_order_relaxed);
	}
	return base && dladdr(address, &info) && info.dli_fbase == base;
}

/* What RTLD_DEFAULT sees beyond the global scope when the caller was
 * loaded RTLD_LOCAL: the caller itself and what it was loaded with.
 * dlopen of a loaded object hands out its handle, whose lookup searches
 * exactly that. */
static void *in_callers_scope(const void *caller, const char *name)
{
	Dl_info info;
	struct link_map *map = NULL;
	if (!caller || !dladdr1(caller, &info, (void **)&map, RTLD_DL_LINKMAP) || !map ||
	    !map->l_name || !map->l_name[0] || is_own(caller))
		return NULL;
	void *handle = dlopen(map->l_name, RTLD_LAZY | RTLD_NOLOAD);
	if (!handle)
		return NULL;
	void *found = vt_real_dlsym(handle, name);
	dlclose(handle);
	return found;
}

/* Whether a CUDA library of the process, not vramtrace, defines name: the
 * driver, the runtime, or one the caller reaches. */
static bool really_defined(const char *name, const void *caller)
{
	if (vt_real_next(name))
		return true;
	void *runtime = dlopen("libcudart.so.13", RTLD_LAZY | RTLD_NOLOAD);
	bool found = runtime && vt_real_dlsym(runtime, name);
	if (runtime)
		dlclose(runtime);
	if (found)
		return true;
	void *reached = in_callers_scope(caller, name);
	return reached && !is_own(reached);
}

/* A CUDA name, looked up as the caller would have without vramtrace:
 * RTLD_DEFAULT in the caller's scope, and absent where no CUDA library
 * defines it (programs probe dlsym(RTLD_DEFAULT, "cuInit") to learn whether
 * CUDA is there). */
__attribute__((visibility("hidden"))) void *vt_dlsym_hook(void *handle, const char *name,
							  const void *caller)
{
	void *found = vt_real_dlsym(handle, name);
	if (!found && handle == RTLD_DEFAULT)
		found = in_callers_scope(caller, name);
	if (found && is_own(found) && !really_defined(name, caller)) {
		vt_real_dlsym(RTLD_NEXT, name); /* leaves dlerror() its message */
		return NULL;
	}
	if (!found) {
		vt_real_dlsym(handle, name); /* dlclose cleared dlerror() */
		return NULL;
	}
	void *named = vt_runtime_hook_for(name, found);
	return named ? named : vt_hooks_wrap_symbol(name, found);
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
		if (vt_tracking_active())
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
