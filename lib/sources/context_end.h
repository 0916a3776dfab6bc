/* What a context's end frees (context_end.c). */
#pragma once

/* cuCtxCreate made a context on device: its arrays may be that one's. */
void vt_context_made_on(int device);
