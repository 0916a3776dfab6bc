/* The one hook table: every driver entry point vramtrace wraps, under both
 * of the names it is reached by (the ABI symbol that dlsym and -lcuda
 * programs use, and the base name plus version that cuGetProcAddress takes),
 * with the real function behind each wrapper. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "entry_points.h"

enum vt_stream_flavour {
	VT_LEGACY_STREAM,
	VT_PER_THREAD_STREAM,
	VT_STREAM_FLAVOURS,
};

struct vt_hook {
	const char *base_name;                    /* as cuGetProcAddress takes it */
	int min_version;                          /* the ABI's first CUDA version */
	const char *abi_name[VT_STREAM_FLAVOURS]; /* exported symbols; [1] may be NULL */
	void *wrapper[VT_STREAM_FLAVOURS];
	const struct vt_observer *observer[VT_STREAM_FLAVOURS]; /* NULL: not observed */
	void *_Atomic real[VT_STREAM_FLAVOURS];
};

/* Each hook's place in the table: VT_HOOK_<abi> for the legacy ABI. */
#define VT_HOOK_INDEX_PLAIN(base, version, abi)                                     VT_HOOK_##abi,
#define VT_HOOK_INDEX(base, version, abi, parameters, arguments)                    VT_HOOK_##abi,
#define VT_HOOK_INDEX_PT(base, version, abi, abi_per_thread, parameters, arguments) VT_HOOK_##abi,
/* clang-format off */
enum vt_hook_index {
	VT_PLAIN_ENTRY_POINTS(VT_HOOK_INDEX_PLAIN)
	VT_DRIVER_ENTRY_POINTS(VT_HOOK_INDEX, VT_HOOK_INDEX_PT)
	VT_HOOK_COUNT
};
/* clang-format on */

extern struct vt_hook vt_hooks[VT_HOOK_COUNT];

/* The real function behind hook's wrapper for flavour, found by its
 * exported ABI name: for a wrapper called before anything handed that
 * function to vramtrace (vt_hook_real looks first). */
void *vt_hook_resolve(struct vt_hook *hook, enum vt_stream_flavour flavour);

/* vt_hook_resolve, inline where the real function is known: every wrapped
 * call asks. */
static inline void *vt_hook_real(struct vt_hook *hook, enum vt_stream_flavour flavour)
{
	void *real = atomic_load_explicit(&hook->real[flavour], memory_order_acquire);
	return real ? real : vt_hook_resolve(hook, flavour);
}

/* dlsym(handle, name) found real: the wrapper to hand out instead, or real. */
void *vt_hooks_wrap_symbol(const char *name, void *real);

/* cuGetProcAddress(base_name, version, flags) returned real: likewise. */
void *vt_hooks_wrap_entry_point(const char *base_name, int version, uint64_t flags, void *real);

struct vt_observer;

/* Calls visit with the observer of every hooked entry point. */
void vt_hooks_for_each_observer(void (*visit)(const struct vt_observer *observer, void *context),
				void *context);
