/* Reading reports: parsed by jansson, then checked field by field, so the
 * formatters can trust every field they read. Errors name the file and the
 * line and column (syntax) or the field (structure). */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report_model.h"

#define VT_SCHEMA           "vramtrace/1"
#define VT_SCHEMA_MERGED    "vramtrace/merged-1"
#define VT_MAX_REPORT_BYTES (256ull << 20)
#define VT_MAX_COUNT        (1ll << 62)

struct vt_report_file {
	const char *path;
	json_t *root;
	bool merged;
	struct vt_report_model report; /* a process's report, when !merged */
	struct vt_merged ranks;        /* vramtrace merge's, when merged */
};

/* Loads and checks path ("-": standard input; only a regular file else), and fills the model; on
 * failure writes the reason (naming the file) into error and returns false. */
bool vt_report_load(const char *path, struct vt_report_file *out, char *error, size_t size);
/* The same for a document in memory (a snapshot from a running process),
 * named name in errors. */
bool vt_report_load_buffer(const char *name, const char *data, size_t length,
			   struct vt_report_file *out, char *error, size_t size);
void vt_report_close(struct vt_report_file *report);

/* Parses a document's text as the loader does (requests of 2^63 to 2^64-1
 * bytes kept as strings of their digits); NULL with the reason, naming
 * path, in error. */
json_t *vt_report_parse(const char *path, const char *text, size_t length, char *error,
			size_t size);

/* Checks an already parsed document (the fuzzer's entry point too). */
bool vt_report_check(json_t *root, bool *merged, char *error, size_t size);
