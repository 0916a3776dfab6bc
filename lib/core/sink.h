/* The one way up. The library sits above every source and keeps the
 * tracker, the report and the process's ending; the layers beneath it hand
 * it their events and requests through this table, which the library
 * defines, so that no file below it calls a function of its. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "ledger.h"

struct vt_sink {
	/* Cheap after the first call: loading costs nothing until this. */
	void (*activate)(void);
	/* Whether this process traces (it used CUDA). */
	bool (*active)(void);
	/* A report now, to path or a name of its own. */
	bool (*dump)(const char *path);
	bool (*window_begin)(void);
	long long (*window_peak)(char *where, size_t size);
	/* The program is ending with status (main returned, or exit()). */
	void (*note_exit)(int status);
	/* The process ends without its destructors (quick_exit, _Exit): the
	 * final report now, as at exit. */
	void (*finish)(void);
	/* The process is about to exec: the report is written now. */
	void (*before_exec)(void);
	/* A signal may end the process (after a program's own SIGABRT
	 * handler): the report as it stands. */
	void (*emergency)(int signal_number, bool final);
};

extern const struct vt_sink vt_sink;
