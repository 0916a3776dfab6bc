/* UTF-8, as every writer of names checks it: the JSON report, the text
 * the terminal shows, and the tool's documents. */
#pragma once

#include <stddef.h>

/* The length of the UTF-8 sequence at s (at most available bytes), 0 when
 * it is none: a stray continuation byte, a cut or overlong sequence, a
 * surrogate or a code point past U+10FFFF. */
size_t vt_utf8_length(const unsigned char *s, size_t available);
