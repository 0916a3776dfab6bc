/* The one place that names the directory of control sockets, for the
 * traced process (which makes it) and the tool (which only reads it):
 * $XDG_RUNTIME_DIR/vramtrace, else /tmp/vramtrace-UID. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* False (and out empty) when no directory can be named. */
bool vt_control_directory(char *out, size_t size);
