/* The control endpoint: a Unix socket per traced process, through which
 * the vramtrace tool (ps, snapshot, top, metrics) asks a running program
 * for a report of this moment. One background thread serves it; it takes
 * no signal, answers one request per connection, and reaches no file but
 * its own socket.
 *
 * Where: $XDG_RUNTIME_DIR/vramtrace/PID.sock, else /tmp/vramtrace-UID/
 * PID.sock. The directory is made 0700 and refused when it is not this
 * user's own, is reachable by others, or is a symlink; the socket is 0600
 * and every peer's uid is checked (SO_PEERCRED: the same user, or root).
 *
 * The protocol is one line per connection, at most VT_CONTROL_REQUEST_MAX
 * bytes, sent within a second of connecting:
 *   "snapshot\n"             the report of this moment, then the end
 *   "snapshot reset-peak\n"  the same, then a new peak interval begins
 * Anything else closes the connection unanswered. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define VT_CONTROL_REQUEST_MAX 64

/* Makes the directory and the socket and starts the thread; false, with
 * one warning, when any of it cannot be done. The program is unharmed
 * either way. A request is answered by the library
 * (vt_library_control_snapshot). */
bool vt_control_start(void);

/* In the child after fork: the parent's socket and thread are not its
 * own. Closes the inherited descriptors; the child starts its own
 * endpoint when it activates. */
void vt_control_forget_after_fork(void);
