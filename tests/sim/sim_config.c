#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	/* A bare number has no meaning a reader could be sure of: 0 alone
	 * is the same in every unit. */
	bool unitless = vt_size_unitless(value);
	if (!vt_size_parse(value, out) || (*out == 0 && !zero_ok) || (unitless && *out != 0))
		report_bad(name, value,
			   "expected a size with its unit, such as 80GiB, 512MiB or 4096B");
}

/* Both Hopper GPUs: 132 multiprocessors at 1,980 MHz. The H100's capacity
 * is the 80 GiB the simulated device has always had; the H200's is what
 * its 141 GB board reports, 143,771 MiB. */
static const struct sim_profile profiles[] = {
	{"h100", 80ull << 30, 2619000, 5120, 50 << 20},
	{"h200", 143771ull << 20, 3201000, 6144, 60 << 20},
};

static void read_profile(void)
{
	const char *value = getenv("VRAMSIM_PROFILE");
	config.profile = &profiles[0];
	if (!value || !*value)
		return;
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (strcasecmp(value, profiles[i].name) == 0) {
			config.profile = &profiles[i];
			return;
		}
	report_bad("VRAMSIM_PROFILE", value, "expected h100 or h200");
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
	uint64_t capacity = config.profile->capacity;
	int filled = 0;
	if (value && *value) {
		char buf[512];
		snprintf(buf, sizeof(buf), "%s", value);
		char *save = NULL;
		for (char *item = strtok_r(buf, ",", &save); item;
		     item = strtok_r(NULL, ",", &save)) {
			if (vt_size_unitless(item) || !vt_size_parse(item, &capacity) ||
			    capacity == 0) {
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
	read_profile();
	read_device_count();
	read_capacities();
	read_size("VRAMSIM_CONTEXT_BYTES", 512ull << 20, true, &config.context_bytes);
	read_size("VRAMSIM_GRANULARITY", 2ull << 20, false, &config.granularity);
	read_size("VRAMSIM_HIDDEN_BYTES", 0, true, &config.hidden_bytes);
}

const struct sim_config *sim_config(void)
{
	pthread_once(&config_once, read_config);
	return &config;
}
