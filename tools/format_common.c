#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_build.h"
#include "../lib/core/size.h"
#include "../lib/report/text_lines.h"
#include "formats.h"
#include "../lib/core/plumbing.h"

const char *vt_human(int64_t bytes, char *buf, unsigned size)
{
	return vt_text_size(bytes, buf, size);
}

const char *vt_bytes_text(uint64_t bytes, char *buf, unsigned size)
{
	vt_size_format(bytes, buf, size);
	return buf;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

const char *vt_frame_label(const struct vt_frame_model *frame, char *buf, size_t size)
{
	const char *module = frame->module ? frame->module : "?";
	/* A line is from 1; none (debug information without one) is no ":0". */
	if (frame->function && frame->file && frame->line > 0)
		snprintf(buf, size, "%s (%s:%" PRId64 ")", frame->function, base_name(frame->file),
			 frame->line);
	else if (frame->function && frame->file)
		snprintf(buf, size, "%s (%s)", frame->function, base_name(frame->file));
	else if (frame->function)
		snprintf(buf, size, "%s (%s)", frame->function, base_name(module));
	else
		snprintf(buf, size, "%s+0x%" PRIx64, base_name(module), frame->offset);
	return buf;
}

bool vt_frame_is_plumbing(const struct vt_frame_model *frame)
{
	return vt_plumbing_frame(frame->module ? frame->module : "",
				 frame->function ? frame->function : "");
}

bool vt_device_selected(const struct vt_owner *device, const struct vt_format_options *options)
{
	return options->device < 0 || device->ordinal == options->device;
}

json_t *vt_selected_document(const struct vt_report_model *report,
			     const struct vt_format_options *options)
{
	json_t *shown = json_deep_copy(report->root);
	if (!shown || options->device < 0)
		return shown;
	json_t *devices = json_array();
	for (size_t i = 0; i < report->device_count; i++)
		if (vt_device_selected(&report->devices[i], options))
			vt_json_push(devices, json_deep_copy(report->devices[i].json));
	vt_json_put(shown, "devices", devices);
	return shown;
}

/* A failed request's size from 2^63 on is held as the string of its
 * digits, which jansson's integers cannot hold (vt_request_bytes). Written
 * back, it is the number the report had: each such string is marked with a
 * leading NUL, which no string read from a report can hold, and the
 * writer's "\u0000DIGITS" is then written as DIGITS. Returns how many
 * were marked, or unmarks them again. */
static size_t mark_requests(json_t *value, bool mark)
{
	size_t marked = 0;
	const char *key;
	json_t *item;
	size_t i;
	if (json_is_array(value))
		json_array_foreach (value, i, item)
			marked += mark_requests(item, mark);
	if (!json_is_object(value))
		return marked;
	json_object_foreach (value, key, item) {
		marked += mark_requests(item, mark);
		if (strcmp(key, "failures") != 0 || !json_is_array(item))
			continue;
		json_t *failure;
		json_array_foreach (item, i, failure) {
			json_t *bytes = json_object_get(failure, "bytes");
			const char *text = json_string_value(bytes);
			size_t length = json_string_length(bytes);
			uint64_t parsed;
			if (!text)
				continue;
			if (mark && vt_request_bytes(bytes, &parsed)) {
				char held[24] = "";
				memcpy(held + 1, text, length);
				marked += json_object_set_new_nocheck(
						  failure, "bytes",
						  json_stringn_nocheck(held, length + 1)) == 0;
			} else if (!mark && length > 0 && text[0] == '\0') {
				json_object_set_new_nocheck(
					failure, "bytes",
					json_stringn_nocheck(text + 1, length - 1));
			}
		}
	}
	return marked;
}

/* Writes what jansson gives it, the quotes and the "\u0000" of each
 * marked request size left out. */
struct unmarking {
	FILE *out;
	char held[8]; /* the start of a mark, not yet written */
	size_t length;
	bool digits; /* inside a marked string */
};

static int unmark(const char *buffer, size_t size, void *data)
{
	static const char mark[] = "\"\\u0000";
	struct unmarking *u = data;
	for (size_t i = 0; i < size; i++) {
		char ch = buffer[i];
		if (u->digits) {
			if (ch == '"')
				u->digits = false;
			else
				fputc(ch, u->out);
			continue;
		}
		if (ch == mark[u->length]) {
			u->held[u->length++] = ch;
			if (u->length == sizeof(mark) - 1)
				u->digits = true, u->length = 0;
			continue;
		}
		fwrite(u->held, 1, u->length, u->out);
		u->length = 0;
		if (ch == '"')
			u->held[u->length++] = ch;
		else
			fputc(ch, u->out);
	}
	return 0;
}

void vt_print_json(json_t *document, FILE *out)
{
	const size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER;
	if (!document || !mark_requests(document, true)) {
		vt_json_dump(document, out, flags);
	} else {
		struct unmarking u = {.out = out};
		if (json_dump_callback(document, unmark, &u, flags) != 0)
			vt_json_checked(NULL);
		fwrite(u.held, 1, u.length, out);
		mark_requests(document, false);
	}
	fputc('\n', out);
}

static ssize_t count_bytes(void *cookie, const char *buf, size_t size)
{
	(void)buf;
	*(uint64_t *)cookie += size;
	return (ssize_t)size;
}

uint64_t vt_print_json_bytes(json_t *document)
{
	uint64_t bytes = 0;
	FILE *counter = fopencookie(&bytes, "w", (cookie_io_functions_t){.write = count_bytes});
	if (!counter)
		return 0;
	vt_print_json(document, counter);
	return fclose(counter) == 0 ? bytes : 0;
}

void vt_print_safe(FILE *out, const char *text)
{
	vt_text_safe(out, text);
}

const char *vt_number_text(double value, char *buf, size_t size)
{
	if (value == floor(value) && fabs(value) < 1e16) {
		snprintf(buf, size, "%.0f", value);
		return buf;
	}
	for (int digits = 1; digits <= 17; digits++) {
		snprintf(buf, size, "%.*g", digits, value);
		if (strtod(buf, NULL) == value)
			break;
	}
	return buf;
}

const char *vt_safe(const char *text, const char *fallback, char *buf, size_t size)
{
	FILE *out = size > 1 ? fmemopen(buf, size - 1, "w") : NULL;
	long used = 0;
	if (out) {
		vt_text_safe(out, text ? text : fallback);
		fflush(out);
		used = ftell(out);
		fclose(out);
	}
	if (size)
		buf[used > 0 ? (size_t)used : 0] = '\0';
	return buf;
}

void vt_print_levels(FILE *out, const struct vt_owner *device, const char *indent)
{
	char size[32], low[32], live[32];
	const struct vt_peak_since_reset *interval = &device->since_reset;
	if (interval->present)
		fprintf(out, "%speak since reset %s at %.3f s (reset at %.3f s)\n", indent,
			vt_human(interval->bytes, size, sizeof(size)),
			(double)interval->at_ns / 1e9, (double)interval->since_ns / 1e9);
	const struct vt_watermark *mark = &device->watermark;
	if (!mark->present)
		return;
	fprintf(out, "%swatermark %s (re-arms below %s): ", indent,
		vt_human(mark->high_bytes, size, sizeof(size)),
		vt_human(mark->low_bytes, low, sizeof(low)));
	if (!mark->crossing_count) {
		fputs("not reached\n", out);
		return;
	}
	const struct vt_crossing_model *last = &mark->crossings[mark->crossing_count - 1];
	fprintf(out, "reached %zu time%s, last at %.3f s with %s live\n", mark->crossing_count,
		mark->crossing_count == 1 ? "" : "s", (double)last->at_ns / 1e9,
		vt_human(last->live_bytes, live, sizeof(live)));
}
