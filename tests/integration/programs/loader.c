/* Loader corner cases: a constructor that allocated before main (libctor),
 * dlsym(RTLD_NEXT) and dlvsym from the program and from a library
 * (libnext), and a library loaded with RTLD_DEEPBIND (libdeepalloc). */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

extern void *ctor_buffer;
void *next_malloc(void);
void *next_malloc_versioned(void);

static const char *module_of(void *symbol)
{
	Dl_info info;
	if (!symbol || !dladdr(symbol, &info) || !info.dli_fname)
		return "(none)";
	const char *slash = strrchr(info.dli_fname, '/');
	return slash ? slash + 1 : info.dli_fname;
}

int main(int argc, char **argv)
{
	printf("constructor allocated: %d\n", ctor_buffer != NULL);
	printf("main: next malloc from %s\n", module_of(dlsym(RTLD_NEXT, "malloc")));
	printf("main: next puts from %s\n", module_of(dlsym(RTLD_NEXT, "puts")));
	printf("lib: next malloc from %s\n", module_of(next_malloc()));
	printf("lib: versioned next malloc from %s\n", module_of(next_malloc_versioned()));
	printf("lib: next malloc is the default one: %d\n",
	       next_malloc() == dlsym(RTLD_DEFAULT, "malloc"));
	void *deep = dlopen(argc > 1 ? argv[1] : "libdeepalloc.so", RTLD_NOW | RTLD_DEEPBIND);
	int (*deep_allocate)(void **, unsigned long) =
		deep ? (int (*)(void **, unsigned long))dlsym(deep, "deep_allocate") : NULL;
	void *buffer = NULL;
	printf("deep-bound allocation: rc=%d\n",
	       deep_allocate ? deep_allocate(&buffer, 8 << 20) : -1);
	return 0;
}
