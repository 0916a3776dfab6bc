/* The tracer's only voice: one line on stderr, prefixed "vramtrace: ".
 * Never stdout, which belongs to the program. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>

void vt_warn(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Warns the first time *once is passed, and never again. */
#define vt_warn_once(once, ...)                     \
	do {                                        \
		if (!atomic_exchange((once), true)) \
			vt_warn(__VA_ARGS__);       \
	} while (0)
