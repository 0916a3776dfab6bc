#include <inttypes.h>

#include "../core/size.h"
#include "cuda_errors.h"
#include "report.h"

#define PREFIX "vramtrace: "

static const char *human(uint64_t bytes, char *buf, unsigned size)
{
	vt_size_format(bytes, buf, size);
	return buf;
}

static void summarize_peak(FILE *out, const char *what, const struct vt_device_stats *stats)
{
	char size[32];
	fprintf(out, PREFIX "%s: peak %s (%" PRIu64 " bytes)", what,
		human(stats->peak, size, sizeof(size)), stats->peak);
	if (stats->peak)
		fprintf(out, " at %.3f s by %s", (double)stats->peak_ns / 1e9,
			stats->peak_api ? stats->peak_api : "?");
	fputc('\n', out);
}

static void summarize_kinds(FILE *out, const struct vt_device_stats *stats)
{
	char at_peak[32], peak[32];
	for (int k = 0; k < VT_KIND_COUNT; k++) {
		const struct vt_kind_stats *kind = &stats->kinds[k];
		if (kind->allocs == 0)
			continue;
		fprintf(out, PREFIX "  %-12s %12s at peak, own peak %s, %" PRIu64 " allocations\n",
			vt_kind_name((enum vt_kind)k),
			human(kind->at_peak, at_peak, sizeof(at_peak)),
			human(kind->peak, peak, sizeof(peak)), kind->allocs);
	}
}

static void summarize_failures(FILE *out, const struct vt_snapshot *snapshot,
			       const struct vt_device_stats *stats, int device)
{
	if (stats->failures == 0)
		return;
	fprintf(out, PREFIX "  failed allocations: %" PRIu64 "\n", stats->failures);
	char size[32];
	for (unsigned i = 0; i < snapshot->failure_count; i++) {
		const struct vt_failure *failure = &snapshot->failures[i];
		if (failure->device != device)
			continue;
		const char *name = vt_cuda_error_name(failure->error);
		fprintf(out, PREFIX "    %s requested by %s at %.3f s: error %d%s%s%s\n",
			human(failure->bytes, size, sizeof(size)), failure->api,
			(double)failure->at_ns / 1e9, failure->error, name ? " (" : "",
			name ? name : "", name ? ")" : "");
	}
}

static void summarize_exit(FILE *out, const struct vt_device_stats *stats)
{
	char size[32];
	fprintf(out, PREFIX "  live at exit: %s in %" PRIu64 " allocations\n",
		human(stats->live, size, sizeof(size)), stats->live_count);
}

static void summarize(FILE *out, const struct vt_snapshot *snapshot, const char *what,
		      const struct vt_device_stats *stats, int device)
{
	summarize_peak(out, what, stats);
	summarize_kinds(out, stats);
	summarize_failures(out, snapshot, stats, device);
	summarize_exit(out, stats);
}

void vt_report_write_summary(const struct vt_report *report, FILE *out)
{
	const struct vt_snapshot *snapshot = report->snapshot;
	bool any = false;
	for (int d = 0; d < VT_MAX_DEVICES; d++) {
		if (!snapshot->devices[d].seen)
			continue;
		const struct vt_device_info *info = &report->devices[d];
		char what[320], capacity[32];
		snprintf(what, sizeof(what), "device %d (%s, %s)", d,
			 info->known && info->name[0] ? info->name : "unknown",
			 human(info->capacity, capacity, sizeof(capacity)));
		summarize(out, snapshot, what, &snapshot->devices[d], d);
		any = true;
	}
	if (snapshot->host.seen) {
		summarize(out, snapshot, "host (pinned)", &snapshot->host, VT_HOST_DEVICE);
		any = true;
	}
	if (!any)
		fprintf(out, PREFIX "no GPU memory was allocated\n");
}
