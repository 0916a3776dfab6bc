#include "size.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

struct size_unit {
	const char *suffix;
	uint64_t factor;
};

static const struct size_unit units[] = {
	{"", 1},
	{"B", 1},
	{"K", 1ull << 10},
	{"KiB", 1ull << 10},
	{"kB", 1000ull},
	{"KB", 1000ull},
	{"M", 1ull << 20},
	{"MiB", 1ull << 20},
	{"MB", 1000000ull},
	{"G", 1ull << 30},
	{"GiB", 1ull << 30},
	{"GB", 1000000000ull},
	{"T", 1ull << 40},
	{"TiB", 1ull << 40},
	{"TB", 1000000000000ull},
};

static bool unit_factor(const char *suffix, uint64_t *factor)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(suffix, units[i].suffix) == 0) {
			*factor = units[i].factor;
			return true;
		}
	}
	return false;
}

bool vt_size_parse(const char *text, uint64_t *bytes)
{
	if (!text || !isdigit((unsigned char)text[0]))
		return false;
	uint64_t value = 0;
	const char *p = text;
	for (; isdigit((unsigned char)*p); p++) {
		uint64_t digit = (uint64_t)(*p - '0');
		if (value > (UINT64_MAX - digit) / 10)
			return false;
		value = value * 10 + digit;
	}
	uint64_t factor;
	if (!unit_factor(p, &factor))
		return false;
	if (value != 0 && factor > UINT64_MAX / value)
		return false;
	*bytes = value * factor;
	return true;
}

void vt_size_format(uint64_t bytes, char *buf, unsigned size)
{
	static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	if (bytes < 1024) {
		snprintf(buf, size, "%llu B", (unsigned long long)bytes);
		return;
	}
	double value = (double)bytes;
	unsigned unit = 0;
	while (value >= 1024.0 && unit + 1 < sizeof(names) / sizeof(names[0])) {
		value /= 1024.0;
		unit++;
	}
	snprintf(buf, size, "%.2f %s", value, names[unit]);
}
