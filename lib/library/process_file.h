/* This process's report file: a new one the first time, the same one
 * replaced after that (checkpoints, the final report), and `vramtrace run`
 * told where it went. */
#pragma once

#include <stdbool.h>

#include "../report/report.h"

/* The report as JSON to fd: the writer vt_output_write takes. */
bool vt_process_file_json(int fd, void *report);
/* Writes report to the file, saying nothing: safe in a signal handler. A
 * file past RLIMIT_FSIZE or a closed pipe fails the write and raises
 * nothing. */
bool vt_process_file_put(struct vt_report *report);
/* The same, a failure said in one line: every time for a final report,
 * once for checkpoints. */
bool vt_process_file_put_or_say(struct vt_report *report, bool final);
/* The file written last; "" before the first. */
const char *vt_process_file_written(void);
/* In a fork's child: its file is not the parent's. */
void vt_process_file_forget(void);
