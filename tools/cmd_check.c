/* vramtrace check: does the workload fit a GPU, with headroom to spare?
 * The peak is the highest device peak (of --device N, of every rank of a
 * merged report); pinned host memory is not device memory and not counted. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "formats.h"
#include "merged.h"
#include "options.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: vramtrace check FILE --budget SIZE [--headroom PCT] [--device N]\n\n"
		"Exits 0 when the peak fits the budget with PCT of the budget left free, 1 when\n"
		"it does not, and prints the margin either way.\n\n"
		"Options:\n"
		"  --budget SIZE   device memory available: bytes, or 80GiB, 1.5 GiB, 80G\n"
		"                  (binary, like GiB) or 80GB (10^9 bytes, echoed in GiB);\n"
		"                  any case, decimals and 1e9 taken, to 2^64-1 bytes\n"
		"  --headroom PCT  share of the budget to keep free, e.g. 10 or 12.5%%\n"
		"                  (default 0)\n"
		"  --device N      only device N (default: the highest peak of all)\n"
		"  -h, --help      show this help\n\n"
		"FILE may be - for standard input. Exit status: 0 fits, 1 does not fit, 2 bad\n"
		"input or usage (a device FILE lacks included).\n");
}

/* The highest device peak, and whose it is ("device 0", "rank 2 device 1"). */
struct peak {
	int64_t bytes;
	bool found;
	char whose[96];
};

static void device_peaks(const struct vt_report_model *report, const char *rank, long device,
			 struct peak *peak)
{
	for (size_t i = 0; i < report->device_count; i++) {
		const struct vt_owner *entry = &report->devices[i];
		if (device >= 0 && entry->ordinal != device)
			continue;
		if (!peak->found || entry->peak.bytes > peak->bytes) {
			peak->bytes = entry->peak.bytes;
			char safe[64];
			snprintf(peak->whose, sizeof(peak->whose), "%s%s%sdevice %" PRId64,
				 rank ? "rank " : "",
				 rank ? vt_safe(rank, "", safe, sizeof(safe)) : "", rank ? " " : "",
				 entry->ordinal);
		}
		peak->found = true;
	}
}

static struct peak find_peak(const struct vt_report_file *file, long device)
{
	struct peak peak = {0, false, ""};
	if (!file->merged)
		device_peaks(&file->report, NULL, device, &peak);
	for (size_t i = 0; file->merged && i < file->ranks.rank_count; i++) {
		const struct vt_rank *rank = &file->ranks.ranks[i];
		device_peaks(&rank->report, vt_rank_name(rank), device, &peak);
	}
	return peak;
}

/* Exact: fits when peak <= budget * (10000 - headroom) / 10000, in 128 bits. */
static int verdict(uint64_t budget, uint32_t headroom, uint64_t peak, const char *whose)
{
	unsigned __int128 usable_x10000 = (unsigned __int128)budget * (10000 - headroom);
	unsigned __int128 peak_x10000 = (unsigned __int128)peak * 10000;
	bool fits = peak_x10000 <= usable_x10000;
	unsigned __int128 gap = fits ? usable_x10000 - peak_x10000 : peak_x10000 - usable_x10000;
	uint64_t margin = (uint64_t)((gap + (fits ? 0 : 9999)) / 10000); /* whole bytes */
	uint64_t reserve = (uint64_t)(((unsigned __int128)budget * headroom + 9999) / 10000);
	char peak_text[32], budget_text[32], reserve_text[32], margin_text[32];
	printf("%s: peak %s (%" PRIu64
	       " bytes) of %s + headroom %s (%u.%02u%%) %s budget %s (%" PRIu64
	       " bytes); %s %s (%" PRIu64 " bytes)\n",
	       fits ? "fits" : "does not fit", vt_bytes_text(peak, peak_text, sizeof(peak_text)),
	       peak, whose, vt_bytes_text(reserve, reserve_text, sizeof(reserve_text)),
	       headroom / 100, headroom % 100, fits ? "<=" : ">",
	       vt_bytes_text(budget, budget_text, sizeof(budget_text)), budget,
	       fits ? "margin" : "over by", vt_bytes_text(margin, margin_text, sizeof(margin_text)),
	       margin);
	return fits ? VT_EXIT_OK : VT_EXIT_FAILED;
}

static const struct vt_option check_options[] = {
	{"budget", 0, VT_OPTION_VALUE, 'b', "SIZE, e.g. 80GiB", NULL},
	{"headroom", 0, VT_OPTION_VALUE, 'r', "PCT, e.g. 10 or 12.5%", NULL},
	{"device", 0, VT_OPTION_VALUE, 'd', "N, a device ordinal", NULL},
	{"help", 'h', VT_OPTION_FLAG, 'h', NULL, NULL},
};

struct check_request {
	const char *file;
	uint64_t budget;
	bool have_budget;
	uint32_t headroom;
	long device;
};

static bool check_option(int id, const char *value, struct check_request *r)
{
	switch (id) {
	case 'b':
		r->have_budget = true;
		return vt_parse_size_option("check", "--budget", value, UINT64_MAX, &r->budget);
	case 'r': {
		unsigned __int128 headroom;
		bool ok = vt_parse_percent_option("check", "--headroom", value, true, &headroom);
		r->headroom = ok ? (uint32_t)headroom : 0;
		return ok;
	}
	default: return vt_parse_count_option("check", "--device", value, 0, 1023, &r->device);
	}
}

/* Returns -1 to go on, or the exit status. */
static int parse(int argc, char **argv, struct check_request *r)
{
	struct vt_arguments arguments;
	vt_arguments_init(&arguments, "check", usage, argc, argv, check_options,
			  sizeof(check_options) / sizeof(check_options[0]));
	const char *value;
	for (int id; (id = vt_arguments_next(&arguments, &value)) != VT_ARGUMENT_END;) {
		if (id <= VT_ARGUMENT_ERROR)
			return vt_arguments_exit(id);
		if (id == VT_ARGUMENT_OPERAND && r->file) {
			vt_usage_error("check", "give one report file, not '%s' too", value);
			return VT_EXIT_BAD_INPUT;
		}
		if (id == VT_ARGUMENT_OPERAND)
			r->file = value;
		else if (!check_option(id, value, r))
			return VT_EXIT_BAD_INPUT;
	}
	if (!r->file || !r->have_budget) {
		vt_usage_error("check", "give a report file and --budget SIZE");
		return VT_EXIT_BAD_INPUT;
	}
	return -1;
}

int vt_command_check(int argc, char **argv)
{
	struct check_request request = {.device = -1};
	int done = parse(argc, argv, &request);
	if (done >= 0)
		return done;
	const char *file = request.file;
	long device = request.device;
	struct vt_report_file report;
	char error[1024];
	if (!vt_report_load(file, &report, error, sizeof(error))) {
		vt_diagnostic("vramtrace check: %s", error);
		return VT_EXIT_BAD_INPUT;
	}
	if (!vt_need_device("check", &report, device)) {
		vt_report_close(&report);
		return VT_EXIT_BAD_INPUT;
	}
	struct peak peak = find_peak(&report, device);
	vt_report_close(&report);
	if (!peak.found) {
		vt_diagnostic("vramtrace check: %s has no device", file);
		return VT_EXIT_BAD_INPUT;
	}
	return verdict(request.budget, request.headroom, (uint64_t)peak.bytes, peak.whose);
}
