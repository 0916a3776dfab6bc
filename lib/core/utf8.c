#include "utf8.h"

#include <stdint.h>

size_t vt_utf8_length(const unsigned char *s, size_t available)
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
