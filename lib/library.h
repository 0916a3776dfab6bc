/* The library itself: activation on the first CUDA call, the one tracker
 * every source records into, and the report: at exit, before exec, on a
 * fatal or terminating signal, every VRAMTRACE_CHECKPOINT_S seconds, and on
 * demand. One process writes one report file and rewrites it in place. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "core/event.h"

/* Cheap after the first call. Loading vramtrace costs nothing until this:
 * no thread, no file, no configuration read. */
void vt_library_activate(void);
/* Whether this process is tracing (it used CUDA). */
bool vt_library_active(void);
/* The configuration, read on first use; reading it does not activate. */
const struct vt_config *vt_library_config(void);
void vt_library_record(const struct vt_event *event);
/* Moves a live allocation to tag; false when it is not live. */
bool vt_library_retag(uint64_t address, uint16_t tag);
/* Writes a report now, to path or else to the configured place. */
bool vt_library_dump(const char *path);
/* A window of time with a peak of its own (vramtrace_window_begin). */
bool vt_library_window_begin(void);
/* Its peak in bytes, and in where the line that held most of it; -1
 * without a window. */
long long vt_library_window_peak(char *where, size_t size);
/* The program is ending with exit status (from main or exit()). */
void vt_library_note_exit(int status);
/* The process is about to exec: the report is written now, since nothing
 * of this process runs after a successful exec. */
void vt_library_before_exec(void);
/* A signal is ending the process (final), or may (a program's handler
 * returned from SIGABRT): writes the report from the handler, without
 * locks or allocation. Once final, the report is closed. */
void vt_library_emergency(int signal_number, bool final);
