/* What a context's end frees (context_end.c). */
#pragma once

/* cuCtxCreate made a context on device: its arrays may be that one's. */
void vt_context_made_on(int device);
/* The program has ended (main returned, or exit): what the runtime's
 * teardown ends from now on is what the program left, and stays live.
 * Async-signal-safe; set once, never cleared. */
void vt_context_end_note_program_ended(void);
