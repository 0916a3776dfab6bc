/* Where reports go: this process's file, resolved once at activation, and
 * the names dumps take. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Expands VRAMTRACE_OUTPUT into vt_library.output_path, said once when it
 * cannot go where asked. */
void vt_destination_resolve(void);
/* A dump's file: NULL or "" is the next default dump name beside the
 * report; a path that ends in '/' or names a directory takes that name
 * inside it. False, with errno, when there is none. */
bool vt_destination_dump(const char *path, char *out, size_t size);
