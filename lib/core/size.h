/* Byte sizes as people write them: "80GiB", "80GB", "81920MiB", "80G",
 * "1048576". Binary suffixes (KiB, MiB, GiB, TiB) and bare K/M/G/T are
 * powers of 1024; decimal ones (kB/KB, MB, GB, TB) are powers of 1000. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Parses text into *bytes. Returns false on anything that is not a whole
 * size: empty, negative, fractional, unknown suffix, or over UINT64_MAX. */
bool vt_size_parse(const char *text, uint64_t *bytes);

/* Formats bytes as "1.50 GiB" (two decimals, binary units) into buf. */
void vt_size_format(uint64_t bytes, char *buf, unsigned size);
