/* Runtime API hooks. They do no accounting, which happens once, at the
 * driver: they only name the call, so that the cuMemAlloc_v2 beneath a
 * cudaMalloc is reported as cudaMalloc. Only a shared libcudart can be
 * interposed; a static one reports driver names. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>

#include "../sources/call.h"
#include "../sources/real.h"
#include "entry_points.h"
#include "runtime_names.h"

static void *runtime_function(const char *name)
{
	void *found = vt_real_dlsym(RTLD_NEXT, name);
	if (!found) {
		void *runtime = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
		if (runtime) {
			found = vt_real_dlsym(runtime, name);
			dlclose(runtime);
		}
	}
	return found;
}

/* Each runtime function in entry_points.h, named around its call. The
 * prototype comes first: cuda_runtime_api.h declares the per-thread
 * flavours only under CUDA's own macros. Naming only sets a thread-local
 * pointer, so the call's errno passes through as it is. */
#define RUNTIME_HOOK(name, parameters, arguments)                                       \
	typedef cudaError_t(*name##_fn) parameters;                                     \
	VT_EXPORT cudaError_t name parameters;                                          \
	VT_EXPORT cudaError_t name parameters                                           \
	{                                                                               \
		static _Atomic(name##_fn) real;                                         \
		name##_fn fn = atomic_load_explicit(&real, memory_order_relaxed);       \
		if (!fn) {                                                              \
			fn = (name##_fn)runtime_function(#name);                        \
			atomic_store_explicit(&real, fn, memory_order_relaxed);         \
		}                                                                       \
		if (!fn)                                                                \
			return cudaErrorInsufficientDriver;                             \
		const char *saved =                                                     \
			vt_runtime_enter(#name, (uintptr_t)__builtin_frame_address(0)); \
		cudaError_t rc = fn arguments;                                          \
		vt_runtime_leave(saved);                                                \
		return rc;                                                              \
	}

VT_RUNTIME_ENTRY_POINTS(RUNTIME_HOOK)

struct runtime_hook {
	const char *name;
	void *hook;
};

#define RUNTIME_HOOK_ENTRY(name, parameters, arguments) {#name, (void *)name},
static const struct runtime_hook runtime_hooks[] = {VT_RUNTIME_ENTRY_POINTS(RUNTIME_HOOK_ENTRY)};

void *vt_runtime_hook_for(const char *name, const void *found)
{
	if (strncmp(name, "cuda", 4) != 0)
		return NULL;
	for (size_t i = 0; i < sizeof(runtime_hooks) / sizeof(runtime_hooks[0]); i++)
		if (strcmp(runtime_hooks[i].name, name) == 0)
			return found == runtime_function(name) ? runtime_hooks[i].hook : NULL;
	return NULL;
}
