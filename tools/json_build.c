#include "json_build.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/core/utf8.h"

static bool failed;

json_t *vt_json_checked(json_t *value)
{
	failed = failed || !value;
	return value;
}

json_t *vt_json_text(const char *text)
{
	const unsigned char *s = (const unsigned char *)(text ? text : "");
	size_t n = strlen((const char *)s);
	char *escaped = malloc(4 * n + 1);
	if (!escaped)
		return vt_json_checked(NULL);
	size_t used = 0;
	for (size_t i = 0; i < n;) {
		size_t length = vt_utf8_length(s + i, n - i);
		if (length) {
			memcpy(escaped + used, s + i, length);
			used += length;
			i += length;
		} else {
			static const char hex[] = "0123456789abcdef";
			escaped[used++] = '\\';
			escaped[used++] = 'x';
			escaped[used++] = hex[s[i] >> 4];
			escaped[used++] = hex[s[i] & 15];
			i++;
		}
	}
	json_t *value = json_stringn(escaped, used);
	free(escaped);
	return vt_json_checked(value);
}

bool vt_json_push(json_t *array, json_t *value)
{
	bool ok = value && array && json_array_append_new(array, value) == 0;
	failed = failed || !ok;
	return ok;
}

bool vt_json_put(json_t *object, const char *key, json_t *value)
{
	bool ok = value && object && json_object_set_new(object, key, value) == 0;
	failed = failed || !ok;
	return ok;
}

bool vt_json_dump(json_t *document, FILE *out, size_t flags)
{
	/* a write that fails leaves its mark on out, which the output's
	 * commit checks: only a missing document is a failure here */
	failed = failed || !document;
	return document && json_dumpf(document, out, flags) == 0;
}

bool vt_json_failed(void)
{
	return failed;
}
