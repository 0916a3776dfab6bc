#define _GNU_SOURCE
#include "directory.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

bool vt_control_directory(char *out, size_t size)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	int length = runtime && runtime[0] == '/'
			     ? snprintf(out, size, "%s/vramtrace", runtime)
			     : snprintf(out, size, "/tmp/vramtrace-%u", (unsigned)getuid());
	if (length < 0 || (size_t)length >= size) {
		if (size)
			out[0] = '\0';
		return false;
	}
	return true;
}
