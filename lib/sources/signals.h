/* Signals that end the process: the report is written on the way out. */
#pragma once

/* Installs the handlers (at activation). Signals the program ignores stay
 * ignored; a program's own handler keeps running after vramtrace's. */
void vt_signals_install(void);
