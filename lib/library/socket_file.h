/* The control socket's file: kept once the endpoint bound it, removed at
 * every ending by the process that made it (library/ending.c). Apart from
 * the endpoint (endpoint.c), so that the ending reaches no further up than
 * this. Everything here is async-signal-safe. */
#pragma once

/* The endpoint bound path in this process. */
void vt_control_socket_file_keep(const char *path);
/* Removes the socket file: at every ending. Safe to call when nothing was
 * bound; only the process that bound it removes it (never a vfork child's
 * exec, never a fork's child). */
void vt_control_remove(void);
/* In the child after fork: the parent's file is not its own. */
void vt_control_socket_file_forget(void);
