/* The public API (include/vramtrace.h reaches it through dlsym, so a program
 * that runs without vramtrace loses nothing but the tags). Pushing a tag
 * does not activate the tracer: only CUDA use, a dump or a window does. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/tag_stack.h"
#include "../core/tags.h"
#include "../config.h"
#include "../library/requests.h"
#include "activation.h"
#include "../sources/call.h"
#include "../sources/recording.h"

VT_EXPORT int vramtrace_push(const char *tag);
VT_EXPORT int vramtrace_pop(void);
VT_EXPORT int vramtrace_tag_pointer(const void *ptr, const char *tag);
VT_EXPORT int vramtrace_dump(const char *path);
VT_EXPORT int vramtrace_window_begin(void);
VT_EXPORT long long vramtrace_window_peak(char *where, size_t size);

VT_EXPORT int vramtrace_push(const char *tag)
{
	if (!tag || !*tag)
		return -1;
	VT_TRACER_WORK();
	vt_tag_push(VT_TAG_FROM_API, vt_tag_intern(tag));
	return 0;
}

VT_EXPORT int vramtrace_pop(void)
{
	return vt_tag_pop(VT_TAG_FROM_API) ? 0 : -1;
}

VT_EXPORT int vramtrace_tag_pointer(const void *ptr, const char *tag)
{
	if (!ptr || !tag || !*tag)
		return -1;
	VT_TRACER_WORK();
	return vt_record_retag((uintptr_t)ptr, vt_tag_intern(tag)) ? 0 : -1;
}

VT_EXPORT int vramtrace_dump(const char *path)
{
	vt_activate();
	return vt_library_dump(path) ? 0 : -1;
}

VT_EXPORT int vramtrace_window_begin(void)
{
	vt_activate();
	return vt_library_window_begin() ? 0 : -1;
}

VT_EXPORT long long vramtrace_window_peak(char *where, size_t size)
{
	return vt_library_window_peak(where, size);
}
