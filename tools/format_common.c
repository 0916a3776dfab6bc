#include <inttypes.h>
#include <string.h>

#include "../lib/core/size.h"
#include "formats.h"
#include "../lib/core/plumbing.h"

const char *vt_human(int64_t bytes, char *buf, unsigned size)
{
	if (bytes >= 0 || size < 2) {
		vt_size_format(bytes < 0 ? 0 : (uint64_t)bytes, buf, size);
		return buf;
	}
	buf[0] = '-';
	vt_size_format(-(uint64_t)bytes, buf + 1, size - 1);
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
	return vt_plumbing_frame(vt_str(frame, "module", ""), vt_str(frame, "function", ""));
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
