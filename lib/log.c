#include "log.h"

#include "descriptors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

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
