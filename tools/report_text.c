/* A report's text before it is parsed: numbers jansson cannot hold, and
 * how many containers the document opens. */
#include "report_text.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Whether text[0..length) is a whole number from 2^63 to 2^64-1, which
 * jansson's signed integers cannot hold. */
static bool unsigned_only(const char *text, size_t length)
{
	if (length < 19 || length > 20 || text[0] == '0')
		return false; /* JSON has no leading zero to hide */
	unsigned __int128 value = 0;
	for (size_t i = 0; i < length; i++)
		value = value * 10 + (unsigned)(text[i] - '0');
	return value > INT64_MAX && value <= UINT64_MAX;
}

/* The length of the number at text (digits, fraction, exponent). */
static size_t number_length(const char *text, const char *end, bool *whole)
{
	const char *p = text;
	*whole = true;
	while (p < end && (isdigit((unsigned char)*p) || strchr("+-.eE", *p))) {
		*whole = *whole && isdigit((unsigned char)*p);
		p++;
	}
	return (size_t)(p - text);
}

struct quoted {
	const char *text;
	size_t length;
	char *out; /* NULL until the first number to quote */
	size_t used;
};

static bool emit(struct quoted *q, size_t at, const char *piece, size_t n)
{
	if (!q->out && !piece)
		return true;
	if (!q->out) {
		/* each quoted number adds two bytes to one of at least 19 */
		if (!(q->out = malloc(q->length + q->length / 8 + 64)))
			return false;
		memcpy(q->out, q->text, at);
		q->used = at;
	}
	memcpy(q->out + q->used, piece ? piece : q->text + at, n);
	q->used += n;
	return true;
}

char *vt_report_quote_unsigned(const char *text, size_t length, size_t *out_length, bool *no_memory,
			       size_t *containers)
{
	struct quoted q = {text, length, NULL, 0};
	bool in_string = false;
	*no_memory = false;
	*containers = 0;
	for (size_t i = 0; i < length;) {
		char ch = text[i];
		size_t n = 1;
		bool whole = false;
		if (in_string && ch == '\\' && i + 1 < length)
			n = 2;
		else if (ch == '"')
			in_string = !in_string;
		else if (!in_string && (ch == '[' || ch == '{'))
			++*containers;
		else if (!in_string && (isdigit((unsigned char)ch) || ch == '-'))
			n = number_length(text + i, text + length, &whole);
		if (whole && unsigned_only(text + i, n)) {
			char quoted[24] = "\"";
			memcpy(quoted + 1, text + i, n);
			quoted[n + 1] = '"';
			if (!emit(&q, i, quoted, n + 2)) {
				*no_memory = true;
				return NULL;
			}
		} else if (q.out) {
			emit(&q, i, NULL, n);
		}
		i += n;
	}
	*out_length = q.used;
	return q.out;
}
