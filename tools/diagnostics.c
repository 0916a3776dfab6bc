/* Standard error, escaped on its way out. Diagnostics quote what they were
 * given: file names, options, a report's labels and keys, a traced
 * process's answer. Any of them may hold a terminal's escapes, and a
 * message built from them must not colour, move or clear the terminal it
 * is read on. Every byte written to stderr passes here, so no message can
 * forget: control characters other than the line's end (and tabs), DEL,
 * C1 controls and bytes that are not UTF-8 are written as \xNN. A message
 * is one line: vt_diagnostic writes the line breaks inside it as \n. */
#define _GNU_SOURCE
#include "diagnostics.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../lib/core/utf8.h"

static bool put(const char *bytes, size_t length)
{
	while (length) {
		ssize_t wrote = write(STDERR_FILENO, bytes, length);
		if (wrote < 0 && errno == EINTR)
			continue;
		if (wrote <= 0)
			return false;
		bytes += wrote;
		length -= (size_t)wrote;
	}
	return true;
}

/* How many bytes at c (left of them) go out as they are: 0 for one that
 * is escaped. A sequence cut at the end of a write is escaped byte by
 * byte, which only a line longer than the stream's buffer can meet. */
static size_t shown_as_is(const unsigned char *c, size_t left)
{
	if (*c < 0x80)
		return *c == '\n' || *c == '\t' || (*c >= 0x20 && *c != 0x7f);
	size_t length = vt_utf8_length(c, left);
	return length == 2 && c[0] == 0xc2 && c[1] < 0xa0 ? 0 : length;
}

static ssize_t escaped_write(void *cookie, const char *buffer, size_t size)
{
	(void)cookie;
	const unsigned char *c = (const unsigned char *)buffer;
	size_t start = 0, i = 0;
	while (i < size) {
		size_t length = shown_as_is(c + i, size - i);
		if (length) {
			i += length;
			continue;
		}
		char escape[5];
		snprintf(escape, sizeof(escape), "\\x%02x", c[i]);
		if (!put(buffer + start, i - start) || !put(escape, 4))
			return -1;
		start = ++i;
	}
	return put(buffer + start, size - start) ? (ssize_t)size : -1;
}

void vt_escape_stderr(void)
{
	FILE *escaped = fopencookie(NULL, "w", (cookie_io_functions_t){.write = escaped_write});
	if (!escaped)
		return; /* stderr stays as it was */
	setvbuf(escaped, NULL, _IOLBF, 1 << 16);
	stderr = escaped;
}

void vt_diagnostic(const char *format, ...)
{
	char *message = NULL;
	va_list args;
	va_start(args, format);
	int length = vasprintf(&message, format, args);
	va_end(args);
	if (length < 0) {
		fputs("vramtrace: out of memory writing a message\n", stderr);
		return;
	}
	flockfile(stderr);
	for (const char *c = message; *c; c++)
		if (*c == '\n')
			fputs("\\n", stderr);
		else
			putc_unlocked(*c, stderr);
	putc_unlocked('\n', stderr);
	funlockfile(stderr);
	free(message);
}
