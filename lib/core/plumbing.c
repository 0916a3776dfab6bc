#include "plumbing.h"

#include <stdio.h>
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

/* The package a Python file belongs to: the directory after site-packages
 * or dist-packages ("numba"), or the file's own name for a top-level
 * module. */
static bool python_library(const char *file, char *library, size_t size)
{
	static const char *const roots[] = {"/site-packages/", "/dist-packages/"};
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		const char *at = strstr(file, roots[i]);
		if (!at)
			continue;
		at += strlen(roots[i]);
		size_t length = strcspn(at, "/");
		if (length > 3 && at[length] == '\0' && strcmp(at + length - 3, ".py") == 0)
			length -= 3;
		snprintf(library, size, "%.*s", (int)length, at);
		return true;
	}
	/* The standard library: /usr/lib/python3.12/..., frozen modules. */
	if (strstr(file, "/lib/python") || strncmp(file, "<frozen", 7) == 0 || !file[0]) {
		snprintf(library, size, "python");
		return true;
	}
	return false;
}

/* CUDA's libraries, wherever they are installed: cuBLAS, cuDNN, NCCL,
 * NVRTC and the like. */
static bool cuda_library(const char *path, const char *name)
{
	static const char *const names[] = {"libcu", "libnccl", "libnv", "libnpp"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(name, names[i], strlen(names[i])) == 0)
			return true;
	return strstr(path, "/cuda/") || strstr(path, "/cuda-") || vt_plumbing_module(path);
}

static bool system_module(const char *path)
{
	static const char *const prefixes[] = {"/lib/",      "/lib32/",      "/lib64/",
					       "/usr/lib",   "/usr/bin/",    "/bin/",
					       "/usr/sbin/", "/usr/libexec/"};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(path, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return strstr(path, "/site-packages/") || strstr(path, "/dist-packages/");
}

bool vt_frame_own(const char *module, const char *file, bool python, char *library, size_t size)
{
	module = module ? module : "";
	file = file ? file : "";
	if (python)
		return !python_library(file, library, size);
	const char *name = file_name(module);
	/* Python's own: the interpreter, libpython, and its extension modules
	 * (lib/python3.12/lib-dynload), wherever Python is installed. */
	if (strncmp(name, "python", 6) == 0 || strncmp(name, "libpython", 9) == 0 ||
	    strstr(module, "/lib/python")) {
		snprintf(library, size, "python");
		return false;
	}
	if (!cuda_library(module, name) && !system_module(module) && module[0])
		return true;
	/* "libffi.so.8.1.2" is libffi.so: versions say nothing here. */
	const char *so = strstr(name, ".so");
	snprintf(library, size, "%.*s", so ? (int)(so - name) + 3 : (int)strlen(name),
		 name[0] ? name : "?");
	return false;
}
