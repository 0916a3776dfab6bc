/* The tool's one writer of standard error (tools/diagnostics.c). */
#pragma once

/* One diagnostic, formatted as printf does, written to stderr as one line:
 * a line break inside it (a file name's, a label's, a traced process's
 * answer's) is written as \n, and the line's own break is added. Every
 * message of the tool goes through here. */
void vt_diagnostic(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Makes stderr write what a terminal would obey as escapes (control
 * characters but newlines and tabs, C1 controls, bytes that are not
 * UTF-8) as \xNN, whatever a diagnostic quotes (tools/diagnostics.c). */
void vt_escape_stderr(void);
