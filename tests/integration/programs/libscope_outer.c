/* Loaded RTLD_LOCAL by scope.c: dlsym(RTLD_DEFAULT, ...) from here sees its
 * own dependency, libscope_inner.so, as glibc resolves in the caller's
 * scope. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

extern int scope_inner_value;

void scope_probe(void);

void scope_probe(void)
{
	static const char *const names[] = {"scope_inner_value", "cu_scope_inner_value",
					    "scope_nowhere", "cuMemAlloc_v2"};
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int *found = dlsym(RTLD_DEFAULT, names[i]);
		const char *error = found ? NULL : dlerror();
		printf("outer: %s %s%s\n", names[i], found ? "found" : "absent",
		       found || error ? "" : " (no dlerror)");
		if (found && i < 2)
			printf("outer: %s = %d\n", names[i], *found);
	}
	printf("outer: its own dependency says %d\n", scope_inner_value);
}
