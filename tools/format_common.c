#include <inttypes.h>
#include <string.h>

#include "../lib/core/size.h"
#include "formats.h"

const char *vt_human(int64_t bytes, char *buf, unsigned size)
{
	vt_size_format(bytes < 0 ? 0 : (uint64_t)bytes, buf, size);
	return buf;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

const char *vt_frame_label(json_t *frame, char *buf, size_t size)
{
	const char *function = vt_str(frame, "function", NULL);
	const char *file = vt_str(frame, "file", NULL);
	const char *module = vt_str(frame, "module", "?");
	if (function && file)
		snprintf(buf, size, "%s (%s:%" PRId64 ")", function, base_name(file),
			 vt_int(frame, "line"));
	else if (function)
		snprintf(buf, size, "%s (%s)", function, base_name(module));
	else
		snprintf(buf, size, "%s+0x%" PRIx64, base_name(module), vt_int(frame, "offset"));
	return buf;
}

bool vt_frame_is_plumbing(json_t *frame)
{
	static const char *const modules[] = {"libcuda.so", "libcudart.so", "libvramtrace.so",
					      "libcupti.so"};
	static const char *const functions[] = {"_start",
						"__libc_start_main",
						"__libc_start_call_main",
						"start_thread",
						"clone",
						"clone3",
						"__clone",
						"__clone3"};
	const char *module = base_name(vt_str(frame, "module", ""));
	for (size_t i = 0; i < sizeof(modules) / sizeof(modules[0]); i++)
		if (strncmp(module, modules[i], strlen(modules[i])) == 0)
			return true;
	const char *function = vt_str(frame, "function", "");
	for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++)
		if (strcmp(function, functions[i]) == 0)
			return true;
	/* The C library's own start-up, named only by its debug file. */
	return !*function && strncmp(module, "libc.so", 7) == 0;
}

bool vt_device_selected(json_t *device, const struct vt_format_options *options)
{
	return options->device < 0 || vt_int(device, "ordinal") == options->device;
}

void vt_print_safe(FILE *out, const char *text)
{
	for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c; c++) {
		if (*c == '\n')
			fputs("\\n", out);
		else if (*c == '\t')
			fputs("\\t", out);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(out, "\\x%02x", *c);
		else
			fputc(*c, out);
	}
}
