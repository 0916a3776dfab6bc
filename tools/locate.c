#include "locate.h"

#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool executable_dir(char *out, size_t size)
{
	ssize_t length = readlink("/proc/self/exe", out, size - 1);
	if (length <= 0)
		return false;
	out[length] = '\0';
	char *slash = strrchr(out, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return true;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* The first of dir/<candidate> that exists, as an absolute path. */
static bool find_beside(const char *const candidates[], size_t count, char *out, size_t size)
{
	char dir[PATH_MAX];
	if (!executable_dir(dir, sizeof(dir)))
		return false;
	for (size_t i = 0; i < count; i++) {
		char path[2 * PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", dir, candidates[i]);
		char resolved[PATH_MAX];
		if (exists(path) && realpath(path, resolved) &&
		    (size_t)snprintf(out, size, "%s", resolved) < size)
			return true;
	}
	return false;
}

bool vt_locate_library(char *out, size_t size)
{
	static const char *const candidates[] = {
		"../lib/libvramtrace.so",            /* build tree */
		VT_BIN_TO_LIBDIR "/libvramtrace.so", /* installed */
	};
	return find_beside(candidates, 2, out, size);
}

bool vt_locate_simulator(char *out, size_t size)
{
	static const char *const candidates[] = {
		"../tests/sim/libcuda.so.1",
		VT_BIN_TO_LIBDIR "/vramtrace/sim/libcuda.so.1",
	};
	if (!find_beside(candidates, 2, out, size))
		return false;
	*strrchr(out, '/') = '\0';
	return true;
}

bool vt_locate_python(char *out, size_t size)
{
	static const char *const candidates[] = {
		"../share/vramtrace/python/vramtrace/__init__.py", /* installed */
	};
	if (find_beside(candidates, 1, out, size)) {
		*strrchr(out, '/') = '\0';
		*strrchr(out, '/') = '\0';
		return true;
	}
	/* The build tree: the sources it was built from. */
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/vramtrace/__init__.py", VT_PYTHON_SOURCE_DIR);
	return exists(path) && (size_t)snprintf(out, size, "%s", VT_PYTHON_SOURCE_DIR) < size;
}
