/* A report's text before it is parsed (report_text.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* jansson holds an array or an object in 150 to 250 bytes, so a file of
 * "[]," or "{}," (3 bytes each) took 45 to 80 times its size in memory
 * (12 GB for 250 MB) before any check could look at it. A report holds one
 * per 100 bytes or so (one per 25 written compactly); past one per 16, a
 * document is refused before it is parsed, which bounds what parsing takes
 * to some 25 times the file's size, as the densest reports take. The slack
 * lets a small document (an empty report) through whatever its shape. */
#define BYTES_PER_CONTAINER 16
#define CONTAINER_SLACK     4096

/* A copy of the document in which every number from 2^63 to 2^64-1 (the
 * tracer writes request sizes as they were asked, to 2^64-1) is a string
 * of its digits, read back exactly by vt_request_bytes; NULL when there is
 * none, and the document is parsed as it is. *containers counts the
 * arrays and objects it opens. */
char *vt_report_quote_unsigned(const char *text, size_t length, size_t *out_length, bool *no_memory,
			       size_t *containers);
