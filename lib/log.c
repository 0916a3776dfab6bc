#include "log.h"

#include "core/utf8.h"
#include "descriptors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void vt_warn(const char *format, ...)
{
	int saved_errno = errno;
	char line[1024];
	int prefix = snprintf(line, sizeof(line), "vramtrace: ");
	va_list args;
	va_start(args, format);
	int body = vsnprintf(line + prefix, sizeof(line) - (size_t)prefix - 1, format, args);
	va_end(args);
	size_t length = (size_t)prefix + (body < 0 ? 0 : (size_t)body);
	if (length > sizeof(line) - 2)
		length = sizeof(line) - 2;
	line[length++] = '\n';
	/* One write(2), so lines from several threads or processes never mix. */
	vt_stderr_write(line, length);
	errno = saved_errno;
}

/* A value is shown up to this many of its bytes: a whole 10 KB one pushed
 * the rest of the line (what was wrong, what was done instead) past the
 * 1 KiB a line holds. */
#define SHOWN_BYTES 120

/* The one byte or UTF-8 character at c (left bytes) as a warning shows
 * it, into piece; its length in text returned. */
static size_t shown_piece(const unsigned char *c, size_t left, char piece[8])
{
	size_t length = *c < 0x80 ? 1 : vt_utf8_length(c, left);
	bool c1_control = length == 2 && c[0] == 0xc2 && c[1] < 0xa0;
	if (*c == '\n' || *c == '\t')
		snprintf(piece, 8, "\\%c", *c == '\n' ? 'n' : 't');
	else if (*c < 0x20 || *c == 0x7f || !length || c1_control)
		snprintf(piece, 8, "\\x%02x", *c);
	else {
		memcpy(piece, c, length);
		piece[length] = '\0';
		return length;
	}
	return 1;
}

const char *vt_warn_text_n(const char *text, size_t length, char *out, size_t size)
{
	const unsigned char *c = (const unsigned char *)text;
	size_t at = 0, used = 0;
	out[0] = '\0';
	while (at < length && at < SHOWN_BYTES) {
		char piece[8];
		size_t taken = shown_piece(c + at, length - at, piece), width = strlen(piece);
		if (used + width + 32 > size)
			break;
		memcpy(out + used, piece, width + 1);
		used += width;
		at += taken;
	}
	if (at < length)
		snprintf(out + used, size - used, "... (%zu bytes)", length);
	return out;
}

const char *vt_warn_text(const char *text, char *out, size_t size)
{
	return vt_warn_text_n(text, strlen(text), out, size);
}
