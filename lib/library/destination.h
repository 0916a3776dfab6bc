/* Where reports go: this process's file, resolved once at activation, and
 * the names dumps take. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Expands VRAMTRACE_OUTPUT into vt_library.output_path, said once when it
 * cannot go where asked. */
void vt_destination_resolve(void);
/* Where the final report goes when its own place refuses it at the end
 * (the directory removed, made read-only, or out of reach after chroot or
 * setuid): the same name in $TMPDIR (or /tmp). False when that is where it
 * failed, or the name does not fit. */
bool vt_destination_fallback(const char *failed, char *out, size_t size);
/* A dump's file: NULL or "" is the next default dump name beside the
 * report; a path that ends in '/' or names a directory takes that name
 * inside it. False, with errno, when there is none. */
bool vt_destination_dump(const char *path, char *out, size_t size);
