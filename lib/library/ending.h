/* The final report: written once, whichever ending comes first (exit,
 * exec, a signal, quick_exit), while the other endings wait for it. */
#pragma once

#include <stdbool.h>

/* The program is ending with status (main returned, or exit()). */
void vt_library_note_exit(int status);
/* The final report now (the destructor, or quick_exit and _Exit). */
void vt_library_finish(void);
/* The same, where no final report was written yet. */
void vt_library_finish_unless_written(void);
/* The report before exec; should the exec fail, the report goes on. */
void vt_library_before_exec(void);
/* From a signal handler: signal_number ends the process (final), or may. */
void vt_library_emergency(int signal_number, bool final);
/* In a fork's child: no report of its own is under way. */
void vt_ending_forget(void);
