#define _GNU_SOURCE
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/core/size.h"
#include "report_file.h"

bool vt_color_wanted(FILE *stream)
{
	const char *no_color = getenv("NO_COLOR");
	return isatty(fileno(stream)) && !(no_color && *no_color);
}

/* Percentages past this are all one: no peak below 2^63 bytes grows by
 * 10^22% from one byte. Saturating there keeps any number of digits exact
 * to compare in 128 bits. */
#define PERCENT_CEILING ((unsigned __int128)10000000000ull * 1000000000000ull)

enum percent_reading { PERCENT_OK, PERCENT_NONE, PERCENT_FINER };

/* "10", "10%", "12.5%", "250%": hundredths of a percent, to a hundredth;
 * PERCENT_FINER for one that would be a percentage but for a third
 * decimal (12.345). */
static enum percent_reading read_hundredths(const char *text, unsigned __int128 *hundredths)
{
	bool finer = false;
	unsigned __int128 whole = 0;
	uint64_t fraction = 0;
	unsigned digits = 0;
	const char *p = text;
	if (!isdigit((unsigned char)*p))
		return PERCENT_NONE;
	for (; isdigit((unsigned char)*p); p++)
		if (whole <= PERCENT_CEILING)
			whole = whole * 10 + (unsigned)(*p - '0');
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, digits++)
			if (digits < 2)
				fraction = fraction * 10 + (uint64_t)(*p - '0');
			else
				finer = finer || *p != '0';
		if (digits == 1)
			fraction *= 10;
		if (digits == 0)
			return PERCENT_NONE;
	}
	if (*p == '%')
		p++;
	if (*p)
		return PERCENT_NONE;
	*hundredths = whole * 100 + fraction;
	return finer ? PERCENT_FINER : PERCENT_OK;
}

/* One error per mistake: "12.345" was "not a percentage from 0 to 100",
 * which it is, but for its third decimal. */
bool vt_parse_percent_option(const char *command, const char *option, const char *text, bool to_100,
			     unsigned __int128 *hundredths)
{
	enum percent_reading reading = read_hundredths(text, hundredths);
	if (reading == PERCENT_OK && (!to_100 || *hundredths <= 10000))
		return true;
	if (reading == PERCENT_FINER)
		vt_diagnostic("vramtrace %s: %s '%s' is finer than a hundredth of a percent; give "
			      "at most two decimals, like 12.35",
			      command, option, text);
	else if (to_100)
		vt_diagnostic("vramtrace %s: %s '%s' is not a percentage from 0 to 100, like 10 or "
			      "12.5%%",
			      command, option, text);
	else
		vt_diagnostic("vramtrace %s: %s '%s' is not a percentage of 0 or more, such as 5, "
			      "12.5%% or 250%%",
			      command, option, text);
	return false;
}

/* Past the end of the number that starts text (after spaces), as size.h
 * reads one: digits, a point and digits, an exponent; NULL when none. */
static const char *number_end(const char *text)
{
	const char *p = text + strspn(text, " \t");
	size_t digits = strspn(p, "0123456789");
	p += digits;
	if (*p == '.') {
		size_t fraction = strspn(p + 1, "0123456789");
		digits += fraction;
		p += 1 + fraction;
	}
	if (!digits)
		return NULL;
	const char *exponent = p + 1 + (p[1] == '+' || p[1] == '-');
	if ((*p == 'e' || *p == 'E') && isdigit((unsigned char)*exponent))
		p = exponent + strspn(exponent, "0123456789");
	return p;
}

/* Whether text, which vt_size_parse refused, is a size in its grammar that
 * is only past 2^64-1 bytes ("16EiB", "1e30"): its number times its unit's
 * bytes, roughly. */
static bool size_overflows(const char *text)
{
	const char *end = number_end(text);
	char number[64], unit[64];
	uint64_t factor;
	if (!end || (size_t)(end - text) >= sizeof(number) ||
	    (size_t)snprintf(unit, sizeof(unit), "1%s", end) >= sizeof(unit) ||
	    !vt_size_parse(unit, &factor))
		return false;
	snprintf(number, sizeof(number), "%.*s", (int)(end - text), text);
	return strtold(number, NULL) * (long double)factor >= 18446744073709551616.0L;
}

enum vt_size_reading vt_read_size(const char *text, uint64_t max, uint64_t *bytes, bool *decimal)
{
	*decimal = false;
	if (!vt_size_parse_unit(text, bytes, decimal))
		return size_overflows(text) ? VT_SIZE_TOO_LARGE : VT_SIZE_NOT_A_SIZE;
	return *bytes > max ? VT_SIZE_TOO_LARGE : VT_SIZE_OK;
}

const char *vt_size_limit_text(uint64_t max)
{
	return max == INT64_MAX ? "2^63-1 bytes (8 EiB)" : "2^64-1 bytes (16 EiB)";
}

bool vt_parse_size_option(const char *command, const char *option, const char *text, uint64_t max,
			  uint64_t *bytes)
{
	bool decimal = false;
	switch (vt_read_size(text, max, bytes, &decimal)) {
	case VT_SIZE_OK:
		if (decimal) { /* GB is 10^9 bytes, which is not what a GPU's "80 GB" holds */
			char binary[32];
			vt_size_format(*bytes, binary, sizeof(binary));
			vt_diagnostic("vramtrace %s: %s %s = %s (%llu bytes)", command, option,
				      text, binary, (unsigned long long)*bytes);
		}
		return true;
	case VT_SIZE_TOO_LARGE:
		vt_diagnostic("vramtrace %s: %s '%s' is too large: beyond %s", command, option,
			      text, vt_size_limit_text(max));
		return false;
	default:
		vt_diagnostic("vramtrace %s: %s '%s' is not a size; write a number and a unit: "
			      "80GiB, 1.5 GiB, 81920MiB, 80G (GiB), 80GB (10^9 bytes) or bytes "
			      "(1e9)",
			      command, option, text);
		return false;
	}
}

bool vt_parse_count_option(const char *command, const char *option, const char *text, long min,
			   long max, long *value)
{
	char *end;
	errno = 0;
	long parsed = strtol(text, &end, 10);
	if (!*text || *end || errno || parsed < min || parsed > max) {
		vt_diagnostic("vramtrace %s: %s '%s' is not a whole number from %ld to %ld",
			      command, option, text, min, max);
		return false;
	}
	*value = parsed;
	return true;
}

static bool report_has_device(const struct vt_report_model *report, long device)
{
	for (size_t i = 0; i < report->device_count; i++)
		if (report->devices[i].ordinal == device)
			return true;
	return false;
}

/* "0, 1" into buf: the ordinals report has, without repeats across ranks. */
static void list_devices(const struct vt_report_model *report, char *buf, size_t size, size_t *used)
{
	for (size_t i = 0; i < report->device_count && *used < size; i++) {
		char ordinal[32];
		snprintf(ordinal, sizeof(ordinal), "%lld", (long long)report->devices[i].ordinal);
		bool listed = false;
		for (const char *at = buf; (at = strstr(at, ordinal)); at++)
			listed = listed || ((at == buf || at[-1] == ' ') &&
					    (at[strlen(ordinal)] == ',' || !at[strlen(ordinal)]));
		if (!listed)
			*used += (size_t)snprintf(buf + *used, size - *used, "%s%s",
						  *used ? ", " : "", ordinal);
	}
}

bool vt_need_device(const char *command, const struct vt_report_file *file, long device)
{
	if (device < 0)
		return true;
	bool found = !file->merged && report_has_device(&file->report, device);
	for (size_t i = 0; file->merged && i < file->ranks.rank_count; i++)
		found = found || report_has_device(&file->ranks.ranks[i].report, device);
	if (found)
		return true;
	char devices[256] = "";
	size_t used = 0;
	if (!file->merged)
		list_devices(&file->report, devices, sizeof(devices), &used);
	for (size_t i = 0; file->merged && i < file->ranks.rank_count; i++)
		list_devices(&file->ranks.ranks[i].report, devices, sizeof(devices), &used);
	vt_diagnostic("vramtrace %s: %s has no device %ld (%s%s)", command, file->path, device,
		      used ? "its devices: " : "it has no device", devices);
	return false;
}
