/* vramtrace: shows where GPU memory goes in any CUDA program.
 *
 * The library needs no code change: load it with
 *     LD_PRELOAD=libvramtrace.so program      or      vramtrace run -- program
 * and it writes a report at exit (docs/report-format.md). This header adds
 * category tags and on-demand reports. It is safe in any C (C99 or later) or
 * C++ program and adds no link dependency: each call looks the library up
 * with dlsym on first use and does nothing when it is not loaded.
 *
 *     vramtrace_push("kv_cache");            // allocations on this thread
 *     cudaMalloc(&cache, bytes);             // are tagged "kv_cache"
 *     vramtrace_pop();
 *
 *     { VRAMTRACE_SCOPE("weights"); load(); } // tagged until the block ends
 *
 *     vramtrace_tag_pointer(buffer, "activations"); // re-tag afterwards
 *     vramtrace_dump("/tmp/now.%p.json");            // a report right now
 *
 * Every function returns 0 on success and -1 otherwise (no library loaded,
 * nothing to pop, a pointer that is not a live allocation, a report that
 * could not be written). Tags are per thread and nest; the innermost wins.
 * A process keeps 1,048,574 distinct tag names (255 bytes each at most);
 * names past that are grouped under "other tags", and the report says so. */
#ifndef VRAMTRACE_H
#define VRAMTRACE_H

#include <dlfcn.h>
#include <string.h>

#define VRAMTRACE_VERSION_MAJOR 0
#define VRAMTRACE_VERSION_MINOR 1
#define VRAMTRACE_VERSION_PATCH 0

/* The report's "schema" field for the format this version writes. */
#define VRAMTRACE_REPORT_SCHEMA "vramtrace/1"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's function called name, or a null pointer. A null handle is
 * glibc's RTLD_DEFAULT, which C code sees only with _GNU_SOURCE. */
static inline void *vramtrace_lookup_(const char *name)
{
	return dlsym((void *)0, name);
}

static inline int vramtrace_push(const char *tag)
{
	int (*fn)(const char *) = 0;
	void *found = vramtrace_lookup_("vramtrace_push");
	memcpy(&fn, &found, sizeof(fn)); /* data to function pointer, portably */
	return fn ? fn(tag) : -1;
}

static inline int vramtrace_pop(void)
{
	int (*fn)(void) = 0;
	void *found = vramtrace_lookup_("vramtrace_pop");
	memcpy(&fn, &found, sizeof(fn));
	return fn ? fn() : -1;
}

static inline int vramtrace_tag_pointer(const void *ptr, const char *tag)
{
	int (*fn)(const void *, const char *) = 0;
	void *found = vramtrace_lookup_("vramtrace_tag_pointer");
	memcpy(&fn, &found, sizeof(fn));
	return fn ? fn(ptr, tag) : -1;
}

/* path takes %p, %h and %r like VRAMTRACE_OUTPUT. A null or empty path
 * writes beside the report, as VRAMTRACE_OUTPUT's name with ".dumpN"
 * before its extension; a path ending in '/' or naming a directory writes
 * that default name (vramtrace.PID.dumpN.json) inside it. An existing file
 * is never replaced: "-1", "-2"... go before the extension. A character
 * device or a FIFO is written in place (/dev/null discards the report, a
 * FIFO streams it to its reader; with no reader the dump fails, -1, rather
 * than wait); a block device or a socket is refused. A failure warns once
 * on stderr and returns -1. */
static inline int vramtrace_dump(const char *path)
{
	int (*fn)(const char *) = 0;
	void *found = vramtrace_lookup_("vramtrace_dump");
	memcpy(&fn, &found, sizeof(fn));
	return fn ? fn(path) : -1;
}

/* Opens a window of time on every device: from now, vramtrace_window_peak
 * gives the highest device memory reached since. 0, or -1 without
 * vramtrace. */
static inline int vramtrace_window_begin(void)
{
	int (*fn)(void) = 0;
	void *found = vramtrace_lookup_("vramtrace_window_begin");
	memcpy(&fn, &found, sizeof(fn));
	return fn ? fn() : -1;
}

/* The highest bytes of device memory any device held since
 * vramtrace_window_begin (-1 without vramtrace or a window); where (when
 * not NULL) receives the line that held most of it at that moment, such
 * as "load_weights (model.py:21)". */
static inline long long vramtrace_window_peak(char *where, size_t size)
{
	long long (*fn)(char *, size_t) = 0;
	void *found = vramtrace_lookup_("vramtrace_window_peak");
	memcpy(&fn, &found, sizeof(fn));
	return fn ? fn(where, size) : -1;
}

#if defined(__GNUC__)
static inline int vramtrace_scope_begin_(const char *tag)
{
	return vramtrace_push(tag);
}

static inline void vramtrace_scope_end_(int *pushed)
{
	if (*pushed == 0)
		vramtrace_pop();
}
#endif

#ifdef __cplusplus
} /* extern "C" */

namespace vramtrace
{
/* Tags this thread's allocations until the scope ends. */
class scope
{
      public:
	explicit scope(const char *tag) : pushed_(vramtrace_push(tag) == 0)
	{
	}
	~scope()
	{
		if (pushed_)
			vramtrace_pop();
	}
	scope(const scope &) = delete;
	scope &operator=(const scope &) = delete;

      private:
	bool pushed_;
};
} // namespace vramtrace
#endif

#define VRAMTRACE_CONCAT_(a, b) a##b
#define VRAMTRACE_CONCAT(a, b)  VRAMTRACE_CONCAT_(a, b)

/* VRAMTRACE_SCOPE(tag): one declaration that tags the rest of the block. */
#if defined(__cplusplus)
#define VRAMTRACE_SCOPE(tag) vramtrace::scope VRAMTRACE_CONCAT(vramtrace_scope_, __LINE__)(tag)
#elif defined(__GNUC__)
#define VRAMTRACE_SCOPE(tag)                                             \
	int VRAMTRACE_CONCAT(vramtrace_scope_, __LINE__)                 \
		__attribute__((cleanup(vramtrace_scope_end_), unused)) = \
			vramtrace_scope_begin_(tag)
#endif

#endif
