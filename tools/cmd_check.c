/* vramtrace check: does the workload fit a GPU, with headroom to spare?
 * The peak is the highest device peak (of --device N, of every rank of a
 * merged report); pinned host memory is not device memory and not counted. */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "formats.h"
#include "merged.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: vramtrace check FILE --budget SIZE [--headroom PCT] [--device N]\n\n"
		"Exits 0 when the peak fits the budget with PCT of the budget left free, 1 when\n"
		"it does not, and prints the margin either way.\n\n"
		"Options:\n"
		"  --budget SIZE   device memory available: bytes, or 80GiB, 81920MiB, 80G\n"
		"                  (binary, like GiB) or 80GB (10^9 bytes)\n"
		"  --headroom PCT  share of the budget to keep free, e.g. 10 or 12.5%%\n"
		"                  (default 0)\n"
		"  --device N      only device N (default: the highest peak of all)\n"
		"  -h, --help      show this help\n\n"
		"Exit status: 0 fits, 1 does not fit, 2 bad input or usage.\n");
}

struct peak {
	int64_t bytes;
	bool found;
};

static void device_peaks(const struct vt_report *report, long device, struct peak *peak)
{
	for (size_t i = 0; i < report->device_count; i++) {
		const struct vt_owner *entry = &report->devices[i];
		if (device >= 0 && entry->ordinal != device)
			continue;
		if (!peak->found || entry->peak.bytes > peak->bytes)
			peak->bytes = entry->peak.bytes;
		peak->found = true;
	}
}

static struct peak find_peak(const struct vt_report_file *file, long device)
{
	struct peak peak = {0, false};
	if (!file->merged)
		device_peaks(&file->report, device, &peak);
	for (size_t i = 0; file->merged && i < file->ranks.rank_count; i++)
		device_peaks(&file->ranks.ranks[i].report, device, &peak);
	return peak;
}

/* Exact: fits when peak <= budget * (10000 - headroom) / 10000, in 128 bits. */
static int verdict(uint64_t budget, uint32_t headroom, uint64_t peak)
{
	unsigned __int128 usable_x10000 = (unsigned __int128)budget * (10000 - headroom);
	unsigned __int128 peak_x10000 = (unsigned __int128)peak * 10000;
	bool fits = peak_x10000 <= usable_x10000;
	unsigned __int128 gap = fits ? usable_x10000 - peak_x10000 : peak_x10000 - usable_x10000;
	uint64_t margin = (uint64_t)((gap + (fits ? 0 : 9999)) / 10000); /* whole bytes */
	uint64_t reserve = (uint64_t)(((unsigned __int128)budget * headroom + 9999) / 10000);
	char peak_text[32], budget_text[32], reserve_text[32], margin_text[32];
	printf("%s: peak %s (%" PRIu64 " bytes) + headroom %s (%u.%02u%%) %s budget %s (%" PRIu64
	       " bytes); %s %s (%" PRIu64 " bytes)\n",
	       fits ? "fits" : "does not fit",
	       vt_human((int64_t)peak, peak_text, sizeof(peak_text)), peak,
	       vt_human((int64_t)reserve, reserve_text, sizeof(reserve_text)), headroom / 100,
	       headroom % 100, fits ? "<=" : ">",
	       vt_human((int64_t)budget, budget_text, sizeof(budget_text)), budget,
	       fits ? "margin" : "over by",
	       vt_human((int64_t)margin, margin_text, sizeof(margin_text)), margin);
	return fits ? VT_EXIT_OK : VT_EXIT_FAILED;
}

int vt_command_check(int argc, char **argv)
{
	static const struct option long_options[] = {
		{"budget", required_argument, NULL, 'b'},
		{"headroom", required_argument, NULL, 'r'},
		{"device", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t budget = 0;
	bool have_budget = false;
	uint32_t headroom = 0;
	long device = -1;
	opterr = 0;
	optind = 1;
	for (int c; (c = getopt_long(argc, argv, "h", long_options, NULL)) != -1;) {
		switch (c) {
		case 'b':
			if (!vt_parse_size_option("check", "--budget", optarg, &budget))
				return VT_EXIT_BAD_INPUT;
			have_budget = true;
			break;
		case 'r':
			if (!vt_parse_percent(optarg, &headroom)) {
				fprintf(stderr,
					"vramtrace check: --headroom '%s' is not a percentage "
					"from 0 to 100, like 10 or 12.5%%\n",
					optarg);
				return VT_EXIT_BAD_INPUT;
			}
			break;
		case 'd':
			if (!vt_parse_count_option("check", "--device", optarg, 0, 1023, &device))
				return VT_EXIT_BAD_INPUT;
			break;
		case 'h': usage(stdout); return VT_EXIT_OK;
		default:
			fprintf(stderr, "vramtrace check: unknown or incomplete option '%s'\n",
				argv[optind - 1]);
			usage(stderr);
			return VT_EXIT_BAD_INPUT;
		}
	}
	if (argc - optind != 1 || !have_budget) {
		fprintf(stderr, "vramtrace check: give one report file and --budget\n");
		usage(stderr);
		return VT_EXIT_BAD_INPUT;
	}
	struct vt_report_file report;
	char error[1024];
	if (!vt_report_load(argv[optind], &report, error, sizeof(error))) {
		fprintf(stderr, "vramtrace check: %s\n", error);
		return VT_EXIT_BAD_INPUT;
	}
	struct peak peak = find_peak(&report, device);
	vt_report_close(&report);
	if (!peak.found) {
		if (device >= 0)
			fprintf(stderr, "vramtrace check: %s has no device %ld\n", argv[optind],
				device);
		else
			fprintf(stderr, "vramtrace check: %s has no device\n", argv[optind]);
		return VT_EXIT_BAD_INPUT;
	}
	return verdict(budget, headroom, (uint64_t)peak.bytes);
}
