/* Byte sizes as people write them, in one grammar for every option,
 * variable and the pytest marker: a number ("80", "3.5", "1e9") and a unit,
 * with spaces allowed around either ("80 GiB"). Binary suffixes (KiB, MiB,
 * GiB, TiB, PiB) and bare K/M/G/T/P are powers of 1024; decimal ones (KB,
 * MB, GB, TB, PB) are powers of 1000; B or none is bytes; the case of a
 * unit does not matter ("80gb" is 80GB). A fraction of a byte is dropped. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Parses text into *bytes. Returns false on anything that is not a size:
 * empty, negative, more than 20 significant digits, an unknown unit, or
 * over UINT64_MAX. */
bool vt_size_parse(const char *text, uint64_t *bytes);
/* The same, saying whether the unit was a decimal one (GB, not GiB). */
bool vt_size_parse_unit(const char *text, uint64_t *bytes, bool *decimal_unit);

/* Whether text is a whole number with no unit ("2"): bytes to
 * vt_size_parse, but where that is surely not what was meant (a simulated
 * device of 2 bytes), a caller refuses it and says how to write it. */
bool vt_size_unitless(const char *text);

/* Formats bytes as "1.50 GiB" (two decimals, binary units) into buf. */
void vt_size_format(uint64_t bytes, char *buf, unsigned size);
