/* The library itself: activation on the first CUDA call, the one tracker
 * every source records into, and the report at exit. */
#pragma once

#include "core/event.h"

/* Cheap after the first call. Loading vramtrace costs nothing until this:
 * no thread, no file, no configuration read. */
void vt_library_activate(void);
void vt_library_record(const struct vt_event *event);
/* The program is ending with exit status (from main or exit()). */
void vt_library_note_exit(int status);
