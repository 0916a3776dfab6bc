#include "json_writer.h"

#include <inttypes.h>
#include <string.h>

void vt_json_init(struct vt_json *json, FILE *out)
{
	memset(json, 0, sizeof(*json));
	json->out = out;
}

static void indent(struct vt_json *json)
{
	fputc('\n', json->out);
	for (int i = 0; i < json->depth; i++)
		fputs("  ", json->out);
}

static size_t utf8_sequence_length(const unsigned char *s, size_t available)
{
	unsigned char c = s[0];
	size_t length = c < 0x80           ? 1
			: (c >> 5) == 0x6  ? 2
			: (c >> 4) == 0xE  ? 3
			: (c >> 3) == 0x1E ? 4
					   : 0;
	if (length == 0 || length > available)
		return 0;
	uint32_t code = length == 1 ? c : c & (0x7F >> length);
	for (size_t i = 1; i < length; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		code = (code << 6) | (s[i] & 0x3F);
	}
	static const uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
	if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
		return 0; /* overlong, out of range or a surrogate */
	return length;
}

static void write_escaped(FILE *out, const char *value, size_t length)
{
	const unsigned char *s = (const unsigned char *)value;
	fputc('"', out);
	for (size_t i = 0; i < length;) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc(c, out);
		} else if (c < 0x20) {
			fprintf(out, "\\u%04x", c);
		} else if (c >= 0x80) {
			size_t sequence = utf8_sequence_length(s + i, length - i);
			if (sequence == 0) {
				fputs("\\ufffd", out);
				i++;
				continue;
			}
			fwrite(s + i, 1, sequence, out);
			i += sequence;
			continue;
		} else {
			fputc(c, out);
		}
		i++;
	}
	fputc('"', out);
}

static void begin_value(struct vt_json *json, const char *key)
{
	if (json->depth > 0) {
		if (json->has_items[json->depth])
			fputc(',', json->out);
		json->has_items[json->depth] = true;
		indent(json);
	}
	if (key) {
		write_escaped(json->out, key, strlen(key));
		fputs(": ", json->out);
	}
}

static void open_container(struct vt_json *json, const char *key, char bracket)
{
	begin_value(json, key);
	fputc(bracket, json->out);
	if (json->depth + 1 < VT_JSON_MAX_DEPTH)
		json->depth++;
	json->has_items[json->depth] = false;
}

static void close_container(struct vt_json *json, char bracket)
{
	bool had_items = json->has_items[json->depth];
	json->depth--;
	if (had_items)
		indent(json);
	fputc(bracket, json->out);
	if (json->depth == 0)
		fputc('\n', json->out);
}

void vt_json_begin_object(struct vt_json *json, const char *key)
{
	open_container(json, key, '{');
}

void vt_json_end_object(struct vt_json *json)
{
	close_container(json, '}');
}

void vt_json_begin_array(struct vt_json *json, const char *key)
{
	open_container(json, key, '[');
}

void vt_json_end_array(struct vt_json *json)
{
	close_container(json, ']');
}

void vt_json_string_n(struct vt_json *json, const char *key, const char *value, size_t length)
{
	begin_value(json, key);
	write_escaped(json->out, value, length);
}

void vt_json_string(struct vt_json *json, const char *key, const char *value)
{
	if (!value) {
		vt_json_null(json, key);
		return;
	}
	vt_json_string_n(json, key, value, strlen(value));
}

void vt_json_u64(struct vt_json *json, const char *key, uint64_t value)
{
	begin_value(json, key);
	fprintf(json->out, "%" PRIu64, value);
}

void vt_json_i64(struct vt_json *json, const char *key, int64_t value)
{
	begin_value(json, key);
	fprintf(json->out, "%" PRId64, value);
}

void vt_json_bool(struct vt_json *json, const char *key, bool value)
{
	begin_value(json, key);
	fputs(value ? "true" : "false", json->out);
}

void vt_json_null(struct vt_json *json, const char *key)
{
	begin_value(json, key);
	fputs("null", json->out);
}
