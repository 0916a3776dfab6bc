/* Looks up the next malloc from inside a library, as interposers do. */
#define _GNU_SOURCE
#include <dlfcn.h>

void *next_malloc(void);
void *next_malloc_versioned(void);

__attribute__((visibility("default"))) void *next_malloc(void)
{
	return dlsym(RTLD_NEXT, "malloc");
}

__attribute__((visibility("default"))) void *next_malloc_versioned(void)
{
	return dlvsym(RTLD_NEXT, "malloc", "GLIBC_2.2.5");
}
