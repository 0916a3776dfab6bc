/* The documents the tool writes (merge, diff, fit, the trace and the
 * pages' data) are built piece by piece with jansson, whose every call can
 * fail: out of memory, or a string that is not UTF-8 (a file name). Here
 * each piece is checked as it is added; a failure is remembered, and
 * vt_cli_output_commit then refuses the output rather than write a document
 * with a piece silently missing. Text from outside (file names) goes in
 * through vt_json_text, which escapes what is not UTF-8 instead of
 * failing. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* A JSON string of text, each byte that is not part of UTF-8 written as
 * the four characters \xNN; NULL (remembered) only when out of memory. */
json_t *vt_json_text(const char *text);
/* value, remembering a failure when it is NULL (a json_pack that failed). */
json_t *vt_json_checked(json_t *value);
/* json_array_append_new and json_object_set_new, checked: false (and
 * remembered) when value is NULL or it could not be added. */
bool vt_json_push(json_t *array, json_t *value);
bool vt_json_put(json_t *object, const char *key, json_t *value);
/* json_dumpf of a document that may be NULL (a build that failed). */
bool vt_json_dump(json_t *document, FILE *out, size_t flags);
/* Whether any piece failed since the start. */
bool vt_json_failed(void);
