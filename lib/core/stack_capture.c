#define _GNU_SOURCE
#include "stack_capture.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "stack_walk.h"
#include "stacks.h"

/* On x86_64 the walk is vramtrace's own (stack_walk.h): it opens nothing,
 * allocates nothing and keeps each call site's rule, about 20 instructions
 * a frame. Elsewhere it is glibc's backtrace (libgcc's unwinder), which
 * opens nothing either but interprets the tables anew at every frame.
 * libunwind is not used: on the local address space it validates
 * addresses through a pipe it opens once, on whatever descriptors are
 * lowest then, and reads and writes those numbers on later walks, when a
 * program that closed them may have opened its own files there. */
typedef int (*backtrace_fn)(void **, int);

static backtrace_fn backtrace_frames;

/* vramtrace's own text: its hooks sit between the program and CUDA at
 * several depths, and none of them says who allocated. */
static uintptr_t own_start, own_end;

struct own_search {
	uintptr_t base;
};

static int find_own(struct dl_phdr_info *info, size_t size, void *context)
{
	(void)size;
	struct own_search *search = context;
	if (info->dlpi_addr != search->base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *header = &info->dlpi_phdr[i];
		if (header->p_type != PT_LOAD || !(header->p_flags & PF_X))
			continue;
		own_start = info->dlpi_addr + header->p_vaddr;
		own_end = own_start + header->p_memsz;
		return 1;
	}
	return 0;
}

static void find_own_text(const void *own_function)
{
	Dl_info info;
	if (own_function && dladdr(own_function, &info) && info.dli_fbase) {
		struct own_search search = {(uintptr_t)info.dli_fbase};
		dl_iterate_phdr(find_own, &search);
	}
}

bool vt_stack_capture_init(const void *own_function)
{
	/* libc's own, not an interposer's (ThreadSanitizer's shows as a
	 * frame). */
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	backtrace_frames = libc ? (backtrace_fn)dlsym(libc, "backtrace") : NULL;
	if (libc)
		dlclose(libc);
	find_own_text(own_function);
	if (vt_stack_walk_available())
		return true;
	if (!backtrace_frames)
		return false;
	/* glibc loads libgcc's unwinder on the first walk: let that be now,
	 * while the caller holds the low descriptors. */
	void *first[4];
	backtrace_frames(first, 4);
	return true;
}

static bool is_own(uintptr_t pc)
{
	return pc >= own_start && pc < own_end;
}

/* vramtrace's own frames on a walk: the most seen so far. Walking costs per
 * frame, so a walk asks for the frames it keeps plus these, not plus the
 * most there could be; a walk that then keeps too few walks again with
 * room for OWN_FRAMES_MAX, which is what every walk would otherwise ask. */
enum { OWN_FRAMES_MAX = 16 };
static _Atomic unsigned own_frames_seen = 2;

static unsigned walk(uintptr_t *frames, unsigned depth, unsigned extra, unsigned *own, bool *full)
{
	void *raw[VT_MAX_STACK_DEPTH + OWN_FRAMES_MAX];
	int got = backtrace_frames(raw, (int)(depth + extra));
	unsigned kept = 0;
	*own = 0;
	for (int i = 0; i < got && kept < depth; i++) {
		if (is_own((uintptr_t)raw[i]))
			(*own)++;
		else
			frames[kept++] = (uintptr_t)raw[i];
	}
	*full = got == (int)(depth + extra);
	return kept;
}

static unsigned capture_by_backtrace(uintptr_t *frames, unsigned depth)
{
	if (!backtrace_frames)
		return 0;
	unsigned extra = atomic_load_explicit(&own_frames_seen, memory_order_relaxed);
	unsigned own;
	bool full;
	unsigned kept = walk(frames, depth, extra, &own, &full);
	if (kept < depth && full && extra < OWN_FRAMES_MAX)
		kept = walk(frames, depth, OWN_FRAMES_MAX, &own, &full);
	if (own > extra)
		atomic_store_explicit(&own_frames_seen, own < OWN_FRAMES_MAX ? own : OWN_FRAMES_MAX,
				      memory_order_relaxed);
	return kept;
}

/* A frame of its own, which vt_stack_walk leaves out with its own. */
__attribute__((noinline)) unsigned vt_stack_capture(uintptr_t *frames, unsigned depth)
{
	if (depth > VT_MAX_STACK_DEPTH)
		depth = VT_MAX_STACK_DEPTH;
	if (!vt_stack_walk_available())
		return capture_by_backtrace(frames, depth);
	unsigned kept = vt_stack_walk(frames, depth, own_start, own_end);
	__asm__ volatile("" ::: "memory"); /* no tail call: this frame stays */
	return kept;
}
