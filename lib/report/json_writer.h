/* A small streaming JSON writer for the report. Writing needs no library;
 * reading reports is the tools' job and uses a real parser. Strings are
 * escaped and always valid UTF-8: bytes that are not become U+FFFD.
 *
 * It is async-signal-safe: a fixed buffer flushed with write(2), numbers
 * formatted here, no allocation, so a fatal signal's handler can use it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VT_JSON_MAX_DEPTH 32
#define VT_JSON_BUFFER    8192

struct vt_json {
	int fd;
	/* CLOCK_MONOTONIC ns past which no write is begun (the write fails);
	 * 0, as vt_json_init leaves it: none. */
	uint64_t deadline_ns;
	/* fd is a client's socket: written with MSG_NOSIGNAL, so a client
	 * that hung up fails the write rather than raising SIGPIPE. */
	bool socket;
	bool failed; /* a write failed; everything after it is dropped */
	int error;   /* the errno of that failure, given back by vt_json_finish */
	int depth;
	bool has_items[VT_JSON_MAX_DEPTH];
	bool one_line[VT_JSON_MAX_DEPTH]; /* a compact array: items on its line */
	size_t used;
	char buffer[VT_JSON_BUFFER];
};

void vt_json_init(struct vt_json *json, int fd);
/* Writes out what is buffered; false when any write failed, errno then
 * that write's error. */
bool vt_json_finish(struct vt_json *json);
/* key is NULL inside arrays and at the top level. */
void vt_json_begin_object(struct vt_json *json, const char *key);
void vt_json_end_object(struct vt_json *json);
void vt_json_begin_array(struct vt_json *json, const char *key);
void vt_json_end_array(struct vt_json *json);
/* An array of scalars written on one line, "[1, 2, 3]": long lists of
 * numbers (a stack's frame indices) stay small. End it with
 * vt_json_end_array. */
void vt_json_begin_line_array(struct vt_json *json, const char *key);
void vt_json_string(struct vt_json *json, const char *key, const char *value);
/* value may hold NULs or invalid UTF-8: length bytes are written. */
void vt_json_string_n(struct vt_json *json, const char *key, const char *value, size_t length);
void vt_json_u64(struct vt_json *json, const char *key, uint64_t value);
void vt_json_i64(struct vt_json *json, const char *key, int64_t value);
void vt_json_bool(struct vt_json *json, const char *key, bool value);
void vt_json_null(struct vt_json *json, const char *key);
