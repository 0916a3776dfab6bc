/* Where reports go: VRAMTRACE_OUTPUT's template expanded, and the file
 * written atomically, mode 0600, never through a symlink and never over an
 * existing file. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Expands %p (pid), %h (host), %r (rank, "0" when unset) and %% into out.
 * A relative result is made absolute against the current directory, so a
 * later chdir does not move the report. False when it does not fit. */
bool vt_output_expand(const char *template_path, int pid, const char *host, const char *rank,
		      char *out, size_t size);

/* Writes through writer(out, context) to a temporary file beside path, then
 * links it into place. When path exists, "-1", "-2", ... go before its
 * extension. The name used goes into written. False with errno set. */
bool vt_output_write(const char *path, void (*writer)(FILE *out, void *context), void *context,
		     char *written, size_t written_size);
