/* VRAMTRACE_CHECKPOINT_S: a thread rewrites the report, so a process killed
 * by SIGKILL (or ended by _exit) leaves its last checkpoint behind. */
#pragma once

/* Starts the thread when the configuration asks for one. */
void vt_checkpoints_start(void);
