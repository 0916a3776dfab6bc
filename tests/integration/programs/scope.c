/* What dlsym finds, from the program and from a library it loaded
 * RTLD_LOCAL, before and after CUDA's libraries are loaded: the same with
 * vramtrace as without (a probe for cuInit must not find vramtrace's). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static const char *const cuda_names[] = {
	"cudaMalloc", "cudaFree", "cuMemAlloc_v2", "cuInit", "cuGetProcAddress_v2", "cuMemFree_v2"};

static void probe(const char *when)
{
	void *self = dlopen(NULL, RTLD_NOW);
	for (unsigned i = 0; i < sizeof(cuda_names) / sizeof(cuda_names[0]); i++) {
		void *by_default = dlsym(RTLD_DEFAULT, cuda_names[i]);
		const char *error = by_default ? NULL : dlerror();
		void *by_self = dlsym(self, cuda_names[i]);
		printf("%s: %s %s%s, through the program's handle %s\n", when, cuda_names[i],
		       by_default ? "found" : "absent", by_default || error ? "" : " (no dlerror)",
		       by_self ? "found" : "absent");
	}
}

static void *load(const char *directory, const char *name, int flags)
{
	char path[8192];
	snprintf(path, sizeof(path), "%s/%s", directory, name);
	void *handle = dlopen(path, flags);
	if (!handle)
		printf("cannot load %s: %s\n", name, dlerror());
	return handle;
}

int main(int argc, char **argv)
{
	(void)argc;
	char directory[4096];
	snprintf(directory, sizeof(directory), "%s", argv[0]);
	char *slash = strrchr(directory, '/');
	if (slash)
		*slash = '\0';
	probe("without CUDA");
	void *outer = load(directory, "libscope_outer.so", RTLD_NOW | RTLD_LOCAL);
	void (*scope_probe)(void) = outer ? (void (*)(void))dlsym(outer, "scope_probe") : NULL;
	if (scope_probe)
		scope_probe();
	printf("program: scope_inner_value %s\n",
	       dlsym(RTLD_DEFAULT, "scope_inner_value") ? "found" : "absent");
	if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL))
		probe("with the driver");
	if (dlopen("libcudart.so.13", RTLD_NOW | RTLD_GLOBAL))
		probe("with the runtime");
	return 0;
}
