/* The tracer's only voice: one line on stderr, prefixed "vramtrace: ".
 * Never stdout, which belongs to the program. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

void vt_warn(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Room for any text vt_warn_text shows. */
#define VT_WARN_TEXT_SIZE 640

/* text (a setting's value, as the user gave it) as one line of a warning
 * shows it, into out (VT_WARN_TEXT_SIZE bytes): what a terminal would
 * obey escaped (\n, \t, \xNN: a value with a line break made a warning
 * of two lines, the second looking like a line of its own), and a long
 * one cut to its first 120 bytes, "... (N bytes)" after them. */
const char *vt_warn_text(const char *text, char *out, size_t size);
/* The same for the first length bytes of text. */
const char *vt_warn_text_n(const char *text, size_t length, char *out, size_t size);

/* Warns the first time *once is passed, and never again. */
#define vt_warn_once(once, ...)                     \
	do {                                        \
		if (!atomic_exchange((once), true)) \
			vt_warn(__VA_ARGS__);       \
	} while (0)
