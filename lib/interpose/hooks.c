#define _GNU_SOURCE
#include "hooks.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>

#include "../sources/observer.h"
#include "../sources/real.h"
#include "prototypes.h"

/* clang-format off */
#define PLAIN(base, version, abi) \
	{base, version, {#abi, NULL}, {(void *)(abi), NULL}, {NULL, NULL}, {NULL, NULL}},
#define HOOK(base, version, abi, parameters, arguments) \
	{base, version, {#abi, NULL}, {(void *)(abi), NULL}, {&vt_observe_##abi, NULL}, {NULL, NULL}},
#define HOOK_PT(base, version, abi, abi_pt, parameters, arguments) \
	{base, version, {#abi, #abi_pt}, {(void *)(abi), (void *)(abi_pt)}, \
	 {&vt_observe_##abi, &vt_observe_##abi_pt}, {NULL, NULL}},

/* In the order of enum vt_hook_index. */
struct vt_hook vt_hooks[VT_HOOK_COUNT] = {
	VT_PLAIN_ENTRY_POINTS(PLAIN)
	VT_DRIVER_ENTRY_POINTS(HOOK, HOOK_PT)
};
/* clang-format on */

static bool is_wrapper(const void *fn)
{
	for (size_t i = 0; i < VT_HOOK_COUNT; i++)
		for (int f = 0; f < VT_STREAM_FLAVOURS; f++)
			if (vt_hooks[i].wrapper[f] == fn)
				return true;
	return false;
}

/* The driver is the library whose file is libcuda.so*: the first such one
 * a wrapped function comes from. It stays loaded from then on: the slots
 * keep its addresses, and a program that closes the driver (a probe for
 * CUDA before its real loading) and opens it again would otherwise get it
 * back at other addresses, which the wrappers would not know for the
 * driver's and would leave untraced, while the slots pointed at nothing. It is kept in its own
 * namespace (a program may load it with dlmopen), where vramtrace's queries of the driver then find
 * it too. */
static bool from_driver(const void *fn)
{
	static _Atomic(void *) driver_base;
	Dl_info info;
	if (!dladdr(fn, &info) || !info.dli_fbase)
		return false;
	void *known = atomic_load_explicit(&driver_base, memory_order_acquire);
	if (known)
		return info.dli_fbase == known;
	const char *slash = info.dli_fname ? strrchr(info.dli_fname, '/') : NULL;
	const char *file = slash ? slash + 1 : info.dli_fname;
	if (!file || strncmp(file, "libcuda.so", strlen("libcuda.so")) != 0)
		return false;
	if (atomic_compare_exchange_strong(&driver_base, &known, info.dli_fbase)) {
		Lmid_t namespace = LM_ID_BASE;
		struct link_map *map = NULL;
		if (dladdr1(fn, &info, (void **)&map, RTLD_DL_LINKMAP) && map)
			dlinfo(map, RTLD_DI_LMID, &namespace);
		vt_driver_met(dlmopen(namespace, info.dli_fname,
				      RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE));
	}
	return atomic_load(&driver_base) == info.dli_fbase;
}

/* Only the driver's functions are wrapped, the first one offered for a
 * slot kept. Any other library's function of the same name (a shim, a
 * stub, a second driver build) is handed out as it is, so that each lookup
 * reaches the library the program asked; a lookup that finds vramtrace's
 * own export (dlsym(RTLD_DEFAULT, ...)) is not a real one. */
static void *offer(struct vt_hook *hook, enum vt_stream_flavour flavour, void *real)
{
	if (is_wrapper(real) || !from_driver(real))
		return real;
	void *expected = NULL;
	atomic_compare_exchange_strong(&hook->real[flavour], &expected, real);
	return hook->wrapper[flavour];
}

/* A wrapper reached by its exported name, before anything was offered:
 * the function the program would have reached without vramtrace. */
void *vt_hook_resolve(struct vt_hook *hook, enum vt_stream_flavour flavour)
{
	void *real = vt_real_next(hook->abi_name[flavour]);
	if (!real || is_wrapper(real))
		return NULL;
	offer(hook, flavour, real);
	return real;
}

void *vt_hooks_wrap_symbol(const char *name, void *real)
{
	for (size_t i = 0; i < VT_HOOK_COUNT; i++)
		for (int f = 0; f < VT_STREAM_FLAVOURS; f++)
			if (vt_hooks[i].abi_name[f] && strcmp(vt_hooks[i].abi_name[f], name) == 0)
				return offer(&vt_hooks[i], (enum vt_stream_flavour)f, real);
	return real;
}

void *vt_hooks_wrap_entry_point(const char *base_name, int version, uint64_t flags, void *real)
{
	struct vt_hook *best = NULL;
	for (size_t i = 0; i < VT_HOOK_COUNT; i++)
		if (strcmp(vt_hooks[i].base_name, base_name) == 0 &&
		    vt_hooks[i].min_version <= version)
			best = &vt_hooks[i];
	if (!best)
		return real; /* not wrapped, or an older ABI that is passed through */
	bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) &&
			  best->wrapper[VT_PER_THREAD_STREAM];
	return offer(best, per_thread ? VT_PER_THREAD_STREAM : VT_LEGACY_STREAM, real);
}

void vt_hooks_for_each_observer(void (*visit)(const struct vt_observer *observer, void *context),
				void *context)
{
	for (size_t i = 0; i < VT_HOOK_COUNT; i++)
		for (int f = 0; f < VT_STREAM_FLAVOURS; f++)
			if (vt_hooks[i].observer[f])
				visit(vt_hooks[i].observer[f], context);
}
