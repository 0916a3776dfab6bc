/* The program's descriptors are its own. vramtrace writes on standard error
 * only while it is still the file the program started with, never raises
 * SIGPIPE doing so, and keeps its long-lived descriptors (NVML's device
 * files) off the low numbers a program that closed them
 * expects its next open to get. All of it is async-signal-safe. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* Takes standard error as it is now for the program's own; done as the
 * library is loaded. */
void vt_stderr_remember(void);

/* SIGPIPE and SIGXFSZ held back on this thread until vt_quiet_end, so a
 * closed pipe or a file past RLIMIT_FSIZE only fails the tracer's write;
 * one the program had pending already is left for it. */
struct vt_stderr_guard {
	sigset_t mask;
	bool sigpipe_pending; /* the program's own, left for it */
	bool sigxfsz_pending;
};
void vt_quiet_begin(struct vt_stderr_guard *guard);
void vt_quiet_end(const struct vt_stderr_guard *guard);

/* Opening standard error for the tracer's output, quietly as above: false
 * when it is closed or no longer the file the program started with. */
bool vt_stderr_begin(struct vt_stderr_guard *guard);
void vt_stderr_end(const struct vt_stderr_guard *guard);
/* All of text, between those two. */
void vt_stderr_write(const char *text, size_t length);

/* Fills the closed descriptors among 0, 1 and 2 with /dev/null while the
 * tracer opens what it keeps open; returns which it filled, for
 * vt_low_fds_release. */
unsigned vt_low_fds_fill(void);
void vt_low_fds_release(unsigned filled);
