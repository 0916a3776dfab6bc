#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/core/size.h"

static struct sim_config config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static void report_bad(const char *name, const char *value, const char *why)
{
	fprintf(stderr, "vramsim: %s='%s' is not valid: %s\n", name, value, why);
	config.valid = false;
}

static void read_size(const char *name, uint64_t fallback, bool zero_ok, uint64_t *out)
{
	const char *value = getenv(name);
	*out = fallback;
	if (!value || !*value)
		return;
	if (!vt_size_parse(value, out) || (*out == 0 && !zero_ok))
		report_bad(name, value, "expected a size such as 80GiB, 512MiB or 4096");
}

static void read_device_count(void)
{
	const char *value = getenv("VRAMSIM_DEVICES");
	config.device_count = 1;
	if (!value || !*value)
		return;
	char *end;
	long count = strtol(value, &end, 10);
	if (*end || count < 0 || count > SIM_MAX_DEVICES) {
		report_bad("VRAMSIM_DEVICES", value, "expected a whole number from 0 to 16");
		return;
	}
	config.device_count = (int)count;
}

/* "80GiB" gives every device 80 GiB; "80GiB,40GiB" gives one each, and the
 * last value repeats for devices beyond the list. */
static void read_capacities(void)
{
	const char *value = getenv("VRAMSIM_CAPACITY");
	uint64_t capacity = 80ull << 30;
	int filled = 0;
	if (value && *value) {
		char buf[512];
		snprintf(buf, sizeof(buf), "%s", value);
		char *save = NULL;
		for (char *item = strtok_r(buf, ",", &save); item;
		     item = strtok_r(NULL, ",", &save)) {
			if (!vt_size_parse(item, &capacity) || capacity == 0) {
				report_bad("VRAMSIM_CAPACITY", value,
					   "expected sizes such as 80GiB or 80GiB,40GiB");
				return;
			}
			if (filled < SIM_MAX_DEVICES)
				config.capacity[filled++] = capacity;
		}
	}
	for (int i = filled; i < SIM_MAX_DEVICES; i++)
		config.capacity[i] = capacity;
}

static void read_config(void)
{
	config.valid = true;
	read_device_count();
	read_capacities();
	read_size("VRAMSIM_CONTEXT_BYTES", 512ull << 20, true, &config.context_bytes);
	read_size("VRAMSIM_GRANULARITY", 2ull << 20, false, &config.granularity);
}

const struct sim_config *sim_config(void)
{
	pthread_once(&config_once, read_config);
	return &config;
}
