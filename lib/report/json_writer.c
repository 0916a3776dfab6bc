#include "json_writer.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../core/utf8.h"

void vt_json_init(struct vt_json *json, int fd)
{
	json->fd = fd;
	json->deadline_ns = 0;
	json->socket = false;
	json->failed = false;
	json->error = 0;
	json->depth = 0;
	json->used = 0;
	memset(json->has_items, 0, sizeof(json->has_items));
	memset(json->one_line, 0, sizeof(json->one_line));
}

static bool past_deadline(const struct vt_json *json)
{
	struct timespec now;
	return json->deadline_ns && clock_gettime(CLOCK_MONOTONIC, &now) == 0 &&
	       (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec >= json->deadline_ns;
}

static void flush(struct vt_json *json)
{
	for (size_t done = 0; done < json->used && !json->failed;) {
		if (past_deadline(json)) {
			json->failed = true;
			json->error = ETIMEDOUT;
			break;
		}
		const char *from = json->buffer + done;
		size_t left = json->used - done;
		ssize_t wrote = json->socket ? send(json->fd, from, left, MSG_NOSIGNAL)
					     : write(json->fd, from, left);
		if (wrote > 0)
			done += (size_t)wrote;
		else if (wrote < 0 && errno != EINTR) {
			json->failed = true;
			json->error = errno;
		}
	}
	json->used = 0;
}

bool vt_json_finish(struct vt_json *json)
{
	flush(json);
	/* What came after the failed write (freeing, symbolizing) may have
	 * changed errno: the caller's message names the write's own error. */
	if (json->failed)
		errno = json->error;
	return !json->failed;
}

static void put(struct vt_json *json, const char *bytes, size_t length)
{
	while (length) {
		if (json->used == sizeof(json->buffer))
			flush(json);
		size_t room = sizeof(json->buffer) - json->used;
		size_t chunk = length < room ? length : room;
		memcpy(json->buffer + json->used, bytes, chunk);
		json->used += chunk;
		bytes += chunk;
		length -= chunk;
	}
}

static void put_char(struct vt_json *json, char c)
{
	put(json, &c, 1);
}

static void put_text(struct vt_json *json, const char *text)
{
	put(json, text, strlen(text));
}

static void put_u64(struct vt_json *json, uint64_t value)
{
	char digits[20];
	int n = 0;
	do {
		digits[n++] = (char)('0' + value % 10);
		value /= 10;
	} while (value);
	while (n)
		put_char(json, digits[--n]);
}

static void indent(struct vt_json *json)
{
	put_char(json, '\n');
	for (int i = 0; i < json->depth; i++)
		put(json, "  ", 2);
}

static void put_escaped(struct vt_json *json, const char *value, size_t length)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)value;
	put_char(json, '"');
	for (size_t i = 0; i < length;) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\') {
			char escaped[2] = {'\\', (char)c};
			put(json, escaped, 2);
		} else if (c < 0x20) {
			char escaped[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			put(json, escaped, 6);
		} else if (c >= 0x80) {
			size_t sequence = vt_utf8_length(s + i, length - i);
			if (sequence == 0) {
				put_text(json, "\\ufffd");
				i++;
				continue;
			}
			put(json, (const char *)s + i, sequence);
			i += sequence;
			continue;
		} else {
			put_char(json, (char)c);
		}
		i++;
	}
	put_char(json, '"');
}

static void begin_value(struct vt_json *json, const char *key)
{
	if (json->depth > 0) {
		bool first = !json->has_items[json->depth];
		json->has_items[json->depth] = true;
		if (json->one_line[json->depth]) {
			if (!first)
				put(json, ", ", 2);
		} else {
			if (!first)
				put_char(json, ',');
			indent(json);
		}
	}
	if (key) {
		put_escaped(json, key, strlen(key));
		put(json, ": ", 2);
	}
}

static void open_container(struct vt_json *json, const char *key, char bracket)
{
	begin_value(json, key);
	put_char(json, bracket);
	if (json->depth + 1 < VT_JSON_MAX_DEPTH)
		json->depth++;
	json->has_items[json->depth] = false;
	json->one_line[json->depth] = false;
}

static void close_container(struct vt_json *json, char bracket)
{
	bool had_items = json->has_items[json->depth];
	bool one_line = json->one_line[json->depth];
	json->depth--;
	if (had_items && !one_line)
		indent(json);
	put_char(json, bracket);
	if (json->depth == 0)
		put_char(json, '\n');
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

void vt_json_begin_line_array(struct vt_json *json, const char *key)
{
	open_container(json, key, '[');
	json->one_line[json->depth] = true;
}

void vt_json_end_array(struct vt_json *json)
{
	close_container(json, ']');
}

void vt_json_string_n(struct vt_json *json, const char *key, const char *value, size_t length)
{
	begin_value(json, key);
	put_escaped(json, value, length);
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
	put_u64(json, value);
}

void vt_json_i64(struct vt_json *json, const char *key, int64_t value)
{
	begin_value(json, key);
	if (value < 0) {
		put_char(json, '-');
		put_u64(json, (uint64_t)0 - (uint64_t)value);
	} else {
		put_u64(json, (uint64_t)value);
	}
}

void vt_json_bool(struct vt_json *json, const char *key, bool value)
{
	begin_value(json, key);
	put_text(json, value ? "true" : "false");
}

void vt_json_null(struct vt_json *json, const char *key)
{
	begin_value(json, key);
	put_text(json, "null");
}
