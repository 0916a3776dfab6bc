/* Where reports go: VRAMTRACE_OUTPUT's template expanded, and the file
 * written atomically, mode 0600, never through a symlink and never over an
 * existing file. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Expands %p (pid), %h (host), %r (rank, "0" when unset) and %% into out.
 * A relative result is made absolute against the current directory, so a
 * later chdir does not move the report. False with errno ENAMETOOLONG when
 * it does not fit, or getcwd's (ENOENT: the working directory was removed). */
bool vt_output_expand(const char *template_path, int pid, const char *host, const char *rank,
		      char *out, size_t size);
/* The same against directory instead of the current one (NULL: it). */
bool vt_output_expand_from(const char *directory, const char *template_path, int pid,
			   const char *host, const char *rank, char *out, size_t size);
/* When path ends in '/' or names a directory, appends the last part of name
 * to it, so the report takes that name inside. False with ENAMETOOLONG. */
bool vt_output_in_directory(char *path, size_t size, const char *name);

/* What fills a report file; false when writing failed. */
typedef bool (*vt_output_writer)(int fd, void *context);

/* Writes through writer(fd, context) to a temporary file beside path, then
 * links it into place. When path exists, "-1", "-2", ... go before its
 * extension. The name used goes into written. False with errno set.
 * A path naming a character device or a FIFO (/dev/null, /dev/tty, a pipe
 * a reader holds open) is written in place; one naming a block device or
 * a socket is refused (ENOTSUP). Async-signal-safe as long as writer is. */
bool vt_output_write(const char *path, vt_output_writer writer, void *context, char *written,
		     size_t written_size);

/* Why vt_output_write or vt_output_replace failed on path with error, in
 * words: a FIFO no process reads and a refused block device or socket are
 * said as such, where strerror says "No such device or address" or
 * "Operation not supported". */
const char *vt_output_reason(const char *path, int error);

/* Replaces previous, a file this process wrote, with a new version (the
 * checkpoint's next write, or the final report over the last checkpoint). */
bool vt_output_replace(const char *previous, vt_output_writer writer, void *context);
