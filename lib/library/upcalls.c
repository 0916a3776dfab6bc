/* The table through which the layers beneath reach the library: each
 * entry is defined by the part of the library that owns it. */
#include "../core/sink.h"

#include "activation.h"
#include "ending.h"
#include "requests.h"

const struct vt_sink vt_sink = {
	.activate = vt_library_activate,
	.active = vt_library_active,
	.dump = vt_library_dump,
	.window_begin = vt_library_window_begin,
	.window_peak = vt_library_window_peak,
	.note_exit = vt_library_note_exit,
	.finish = vt_library_finish,
	.before_exec = vt_library_before_exec,
	.emergency = vt_library_emergency,
};
