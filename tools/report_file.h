/* Reading reports: parsed by jansson, then checked field by field, so the
 * formatters can trust every field they read. Errors name the file and the
 * line and column (syntax) or the field (structure). */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VT_SCHEMA           "vramtrace/1"
#define VT_SCHEMA_MERGED    "vramtrace/merged-1"
#define VT_MAX_REPORT_BYTES (256ull << 20)
#define VT_MAX_COUNT        (1ll << 62)

struct vt_report_file {
	const char *path;
	json_t *root;
	bool merged;
};

/* Loads and checks path; on failure writes a one-line reason (naming the
 * file) into error and returns false. */
bool vt_report_load(const char *path, struct vt_report_file *out, char *error, size_t size);
void vt_report_close(struct vt_report_file *report);

/* Checks an already parsed document (the fuzzer's entry point too). */
bool vt_report_check(json_t *root, bool *merged, char *error, size_t size);

/* Accessors for checked documents: missing members read as 0 or fallback. */
int64_t vt_int(json_t *object, const char *key);
const char *vt_str(json_t *object, const char *key, const char *fallback);
/* The frames array of stack id, or NULL. */
json_t *vt_stack_frames_of(json_t *root, int64_t id);
