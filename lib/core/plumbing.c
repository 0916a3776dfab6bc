#include "plumbing.h"

#include <string.h>

const char *const vt_plumbing_modules[] = {"libcuda.so", "libcudart.so", "libvramtrace.so",
					   "libcupti.so", NULL};
const char *const vt_plumbing_functions[] = {"_start",
					     "__libc_start_main",
					     "__libc_start_call_main",
					     "start_thread",
					     "clone",
					     "clone3",
					     "__clone",
					     "__clone3",
					     NULL};

static const char *file_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path ? path : "";
}

bool vt_plumbing_module(const char *path)
{
	const char *name = file_name(path);
	for (const char *const *module = vt_plumbing_modules; *module; module++)
		if (strncmp(name, *module, strlen(*module)) == 0)
			return true;
	return false;
}

bool vt_plumbing_frame(const char *path, const char *function)
{
	if (vt_plumbing_module(path))
		return true;
	for (const char *const *name = vt_plumbing_functions; function && *name; name++)
		if (strcmp(function, *name) == 0)
			return true;
	return (!function || !*function) && strncmp(file_name(path), "libc.so", 7) == 0;
}
