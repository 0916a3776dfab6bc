#include "size.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

struct size_unit {
	const char *suffix; /* matched without regard to case */
	uint64_t factor;
	bool decimal;
};

static const struct size_unit units[] = {
	{"", 1, false},
	{"B", 1, false},
	{"K", 1ull << 10, false},
	{"KiB", 1ull << 10, false},
	{"KB", 1000ull, true},
	{"M", 1ull << 20, false},
	{"MiB", 1ull << 20, false},
	{"MB", 1000000ull, true},
	{"G", 1ull << 30, false},
	{"GiB", 1ull << 30, false},
	{"GB", 1000000000ull, true},
	{"T", 1ull << 40, false},
	{"TiB", 1ull << 40, false},
	{"TB", 1000000000000ull, true},
	{"P", 1ull << 50, false},
	{"PiB", 1ull << 50, false},
	{"PB", 1000000000000000ull, true},
	/* No bare E: "1e" would read as exa where an exponent was left out. */
	{"EiB", 1ull << 60, false},
	{"EB", 1000000000000000000ull, true},
};

static const struct size_unit *unit_named(const char *suffix, size_t length)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i].suffix) == length &&
		    strncasecmp(suffix, units[i].suffix, length) == 0)
			return &units[i];
	return NULL;
}

/* A decimal number: at most 20 significant digits in mantissa, with
 * exponent the power of ten it is multiplied by. */
struct decimal {
	unsigned __int128 mantissa;
	int exponent;
};

static const char *parse_digits(const char *p, struct decimal *d, bool fraction, unsigned *digits,
				bool *any)
{
	for (; isdigit((unsigned char)*p); p++) {
		*any = true;
		if (d->mantissa == 0 && *p == '0') {
			d->exponent -= fraction;
			continue;
		}
		if (++*digits > 20)
			return NULL; /* finer than any size needs */
		d->mantissa = d->mantissa * 10 + (unsigned)(*p - '0');
		d->exponent -= fraction;
	}
	return p;
}

static const char *parse_decimal(const char *p, struct decimal *d)
{
	unsigned digits = 0;
	bool any = false;
	*d = (struct decimal){0, 0};
	p = parse_digits(p, d, false, &digits, &any);
	if (p && *p == '.')
		p = parse_digits(p + 1, d, true, &digits, &any);
	if (!p || !any)
		return NULL;
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
	     ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
		bool negative = p[1] == '-';
		p += isdigit((unsigned char)p[1]) ? 1 : 2;
		int power = 0;
		for (; isdigit((unsigned char)*p); p++)
			if (power < 1000)
				power = power * 10 + (*p - '0');
		d->exponent += negative ? -power : power;
	}
	return p;
}

/* mantissa * 10^exponent * factor, whole bytes (a fraction of a byte is
 * dropped); false past UINT64_MAX. */
static bool scale(const struct decimal *d, uint64_t factor, uint64_t *bytes)
{
	unsigned __int128 value = d->mantissa * factor; /* < 2^67 * 2^60 */
	if (d->mantissa == 0) {
		*bytes = 0;
		return true;
	}
	for (int e = d->exponent; e > 0; e--)
		if ((value *= 10) > UINT64_MAX)
			return false;
	for (int e = d->exponent; e < 0 && value; e++)
		value /= 10;
	if (value > UINT64_MAX)
		return false;
	*bytes = (uint64_t)value;
	return true;
}

bool vt_size_parse_unit(const char *text, uint64_t *bytes, bool *decimal_unit)
{
	if (!text)
		return false;
	const char *p = text;
	while (*p == ' ' || *p == '\t')
		p++;
	struct decimal d;
	if (!(p = parse_decimal(p, &d)))
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t length = strcspn(p, " \t");
	const struct size_unit *unit = unit_named(p, length);
	for (const char *rest = p + length; unit && *rest; rest++)
		if (*rest != ' ' && *rest != '\t')
			unit = NULL;
	uint64_t value;
	if (!unit || !scale(&d, unit->factor, &value))
		return false;
	*bytes = value;
	if (decimal_unit)
		*decimal_unit = unit->decimal;
	return true;
}

bool vt_size_parse(const char *text, uint64_t *bytes)
{
	return vt_size_parse_unit(text, bytes, NULL);
}

/* A number alone, without its unit: "2", "1.5", "1e9". Read as bytes,
 * "1.5" would be a device of 1 byte, surely not what was meant. */
bool vt_size_unitless(const char *text)
{
	if (!text)
		return false;
	while (*text == ' ' || *text == '\t')
		text++;
	struct decimal d;
	const char *p = parse_decimal(text, &d);
	if (!p)
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '\0';
}

/* A value that two decimals round to 1024.00 is the next unit's 1.00:
 * 1048575 bytes are 1.00 MiB, never 1024.00 KiB. */
static bool rounds_up_to_next_unit(double value)
{
	char text[32];
	snprintf(text, sizeof(text), "%.2f", value);
	return strcmp(text, "1024.00") == 0;
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
	while ((value >= 1024.0 || rounds_up_to_next_unit(value)) &&
	       unit + 1 < sizeof(names) / sizeof(names[0])) {
		value /= 1024.0;
		unit++;
	}
	snprintf(buf, size, "%.2f %s", value, names[unit]);
}
