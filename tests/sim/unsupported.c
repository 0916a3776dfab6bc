/* What a program called that the simulation does not implement, listed
 * once more at exit under VRAMSIM_VERBOSE, so that a user sees at once why
 * a program stopped. Each simulated library keeps its own list. */
#include <stdio.h>
#include <stdlib.h>

#include "abi.h"

#define NAMES 512

static const char *names[NAMES];
static unsigned count;

void sim_unsupported_note(const char *name)
{
	unsigned slot = __atomic_fetch_add(&count, 1, __ATOMIC_RELAXED);
	if (slot < NAMES)
		__atomic_store_n(&names[slot], name, __ATOMIC_RELEASE);
}

void sim_unsupported_list(const char *library)
{
	unsigned total = __atomic_load_n(&count, __ATOMIC_ACQUIRE);
	if (!total || !getenv("VRAMSIM_VERBOSE"))
		return;
	fprintf(stderr, "vramsim: %s: %u function%s called that the simulation does not implement:",
		library, total, total == 1 ? "" : "s");
	for (unsigned i = 0; i < total && i < NAMES; i++) {
		const char *name = __atomic_load_n(&names[i], __ATOMIC_ACQUIRE);
		fprintf(stderr, " %s", name ? name : "?");
	}
	fprintf(stderr, "%s\n", total > NAMES ? " ..." : "");
}
