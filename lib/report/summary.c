#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../core/plumbing.h"
#include "../core/python_code.h"
#include "../core/rules.h"
#include "../core/size.h"
#include "../core/stacks.h"
#include "../core/tags.h"
#include "cuda_errors.h"
#include "report.h"
#include "summary_stacks.h"
#include "text_lines.h"

#define PREFIX "vramtrace: "

static const char *human(uint64_t bytes, char *buf, unsigned size)
{
	vt_size_format(bytes, buf, size);
	return buf;
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The owner's line, then its peak as the text format writes both. */
static void summarize_peak(FILE *out, const char *what, const struct vt_device_stats *stats)
{
	fprintf(out, PREFIX "%s\n", what);
	vt_text_peak(out, PREFIX, (int64_t)stats->peak, (int64_t)stats->peak_ns, stats->peak_api);
}

static void counter_row(FILE *out, const char *name, const struct vt_device_stats *stats,
			const struct vt_counter *counter)
{
	vt_text_counter_row(out, PREFIX, name, (int64_t)vt_stats_at_peak(stats, counter),
			    (int64_t)stats->peak, (int64_t)counter->peak, (int64_t)counter->allocs,
			    "allocation");
}

/* Graph memory is the driver's reservation: what the program made of it
 * is its allocation nodes. */
static void graph_row(FILE *out, const struct vt_report *report,
		      const struct vt_device_stats *stats, int device)
{
	const struct vt_counter *graph = &stats->kinds[VT_KIND_GRAPH];
	if (!report->graphs || device < 0 || device >= VT_VIEW_DEVICES) {
		counter_row(out, vt_kind_name(VT_KIND_GRAPH), stats, graph);
		return;
	}
	vt_text_counter_row(out, PREFIX, vt_kind_name(VT_KIND_GRAPH),
			    (int64_t)vt_stats_at_peak(stats, graph), (int64_t)stats->peak,
			    (int64_t)graph->peak, (int64_t)report->graphs[device].allocation_nodes,
			    "allocation node");
}

static void summarize_kinds(FILE *out, const struct vt_report *report,
			    const struct vt_device_stats *stats, int device)
{
	bool any = false;
	for (int k = 0; k < VT_KIND_COUNT; k++)
		any |= stats->kinds[k].allocs != 0;
	if (any)
		fprintf(out, PREFIX "  kinds at the peak:\n");
	for (int k = 0; k < VT_KIND_COUNT; k++) {
		if (!stats->kinds[k].allocs)
			continue;
		if (k == VT_KIND_GRAPH)
			graph_row(out, report, stats, device);
		else
			counter_row(out, vt_kind_name((enum vt_kind)k), stats, &stats->kinds[k]);
	}
}

/* The report keeps VRAMTRACE_TOP (10,000) stacks; the summary names at
 * most 20 tags. */
static uint32_t summary_tags(const struct vt_report *report)
{
	return report->top && report->top < 20 ? report->top : 20;
}

/* The top tags (VRAMTRACE_TOP, at most 20), the rest on one line: a program may name
 * a million. */
static void summarize_tags(FILE *out, const struct vt_report *report,
			   const struct vt_device_stats *stats)
{
	uint32_t *order = malloc((stats->tags.size ? stats->tags.size : 1) * sizeof(*order));
	uint32_t count = order ? vt_report_tag_order(stats, order) : 0;
	if (count == 0 || (count == 1 && order[0] == VT_TAG_UNTAGGED)) {
		free(order);
		return;
	}
	char at_peak[32];
	fprintf(out, PREFIX "  tags at the peak:\n");
	uint64_t rest = 0;
	for (uint32_t i = 0; i < count; i++) {
		const struct vt_counter *tag = &stats->tags.items[order[i]];
		uint64_t bytes = vt_stats_at_peak(stats, tag);
		if (i >= summary_tags(report)) {
			rest += bytes;
			continue;
		}
		counter_row(out, vt_tag_name(order[i]), stats, tag);
	}
	if (count > summary_tags(report))
		fprintf(out, PREFIX "    and %" PRIu32 " more tag%s, %s at the peak\n",
			count - summary_tags(report), count - summary_tags(report) > 1 ? "s" : "",
			human(rest, at_peak, sizeof(at_peak)));
	free(order);
}

/* The tags named on an out-of-memory line; the report lists them all. */
#define SNAPSHOT_TAGS 10

static void summarize_snapshot(FILE *out, const struct vt_oom_snapshot *snapshot, uint64_t live)
{
	char size[32];
	if (snapshot->tag_count == 0)
		return;
	fprintf(out, PREFIX "      live then:");
	uint32_t shown = snapshot->tag_count < SNAPSHOT_TAGS ? snapshot->tag_count : SNAPSHOT_TAGS;
	uint64_t rest = 0;
	for (uint32_t i = 0; i < snapshot->tag_count; i++) {
		if (i >= shown) {
			rest += snapshot->tags[i].bytes;
			continue;
		}
		fprintf(out, "%s ", i ? "," : "");
		vt_text_safe(out, vt_tag_name(snapshot->tags[i].tag));
		fprintf(out, " %s (%.1f%%)", human(snapshot->tags[i].bytes, size, sizeof(size)),
			percent(snapshot->tags[i].bytes, live));
	}
	if (snapshot->tag_count > shown)
		vt_text_more_tags(out, snapshot->tag_count - shown, (int64_t)rest);
	fputc('\n', out);
}

/* The failed allocations listed per device; the report keeps up to 64. */
#define SUMMARY_FAILURES 5

static void summarize_failures(FILE *out, const struct vt_snapshot *snapshot,
			       const struct vt_device_stats *stats, int device)
{
	if (stats->failures == 0)
		return;
	fprintf(out, PREFIX "  failed allocations: %" PRIu64 "\n", stats->failures);
	uint64_t listed = 0;
	for (unsigned i = 0; i < snapshot->failure_count && listed < SUMMARY_FAILURES; i++) {
		const struct vt_failure *failure = &snapshot->failures[i];
		if (failure->device != device)
			continue;
		vt_text_failure(out, PREFIX,
				&(struct vt_text_failure){
					failure->bytes, failure->api, vt_tag_name(failure->tag),
					vt_cuda_error_name(failure->api, failure->error),
					failure->error, (int64_t)failure->at_ns,
					(int64_t)failure->live_bytes});
		listed++;
		if (failure->snapshot)
			summarize_snapshot(out, failure->snapshot, failure->live_bytes);
	}
	if (stats->failures > listed)
		vt_text_more_failures(out, PREFIX, (int64_t)(stats->failures - listed));
}

/* What the exit line names: the leaks of one shown row together (a row
 * is a place, and may hold several stacks), or one leak of a stack no
 * row shows. */
struct leak_mention {
	size_t rank; /* of the row, 0 for a stack no row shows */
	const struct vt_leak *leak;
	uint64_t bytes, count;
};

static struct leak_mention largest_leak(const struct vt_report *report, int device,
					const struct vt_summary_rows *rows)
{
	struct leak_mention best = {0}, *by_rank = calloc(rows->count + 1, sizeof(*by_rank));
	for (uint64_t i = 0; report->leaks && i < report->leaks->group_count; i++) {
		const struct vt_leak *leak = &report->leaks->groups[i];
		if (leak->device != device)
			continue;
		size_t rank = by_rank ? vt_summary_rank(report, rows, leak->stack, leak->tag) : 0;
		struct leak_mention single = {0, leak, leak->bytes, leak->count};
		struct leak_mention *mention = rank ? &by_rank[rank] : &single;
		if (rank) {
			*mention = (struct leak_mention){rank, leak, mention->bytes + leak->bytes,
							 mention->count + leak->count};
		}
		if (mention->bytes > best.bytes)
			best = *mention;
	}
	free(by_rank);
	return best;
}

static void summarize_exit(FILE *out, const struct vt_report *report,
			   const struct vt_device_stats *stats, int device,
			   const struct vt_summary_rows *rows)
{
	char size[32];
	/* The graphs' reservation is one ledger entry, the driver's. */
	uint64_t reserved = stats->kinds[VT_KIND_GRAPH].live, live = stats->live - reserved;
	uint64_t count = stats->live_count - (reserved ? 1 : 0);
	vt_text_live_at_exit(out, PREFIX, (int64_t)live, (int64_t)count, (int64_t)reserved);
	struct leak_mention most = largest_leak(report, device, rows);
	if (most.leak) {
		char where[1200] = "";
		if (most.rank)
			snprintf(where, sizeof(where), "stack #%zu", most.rank);
		else if (most.leak->stack != VT_STACK_NONE && report->symbolizer)
			vt_report_describe_stack(report->symbolizer, most.leak->stack, where,
						 sizeof(where));
		fprintf(out, "; most %s", where[0] ? (most.rank ? "from " : "at ") : "");
		vt_text_safe(out, where);
		fputs(" [", out);
		vt_text_safe(out, vt_tag_name(most.leak->tag));
		fprintf(out, "]: %s in %" PRIu64 " allocation%s",
			human(most.bytes, size, sizeof(size)), most.count,
			most.count == 1 ? "" : "s");
	}
	fputc('\n', out);
}

/* The contexts made on the device, and what the device itself showed at
 * the tracked peak beside what was tracked. */
static void summarize_device_view(FILE *out, const struct vt_report *report,
				  const struct vt_device_stats *stats, int device)
{
	const struct vt_device_view *view = report->views && device >= 0 && device < VT_VIEW_DEVICES
						    ? &report->views[device]
						    : NULL;
	vt_text_contexts(out, PREFIX, (int64_t)stats->contexts);
	if (!view || !view->sampled)
		return;
	/* The figures the report writes (report_schema.h's device_view). */
	vt_text_device_view(
		out, PREFIX,
		&(struct vt_text_view){(int64_t)view->peak_used,
				       (int64_t)view->used_at_best - (int64_t)view->tracked_at_best,
				       (int64_t)view->tracked_at_best,
				       view->tracked_at_best != stats->peak});
}

static void summarize(FILE *out, const struct vt_report *report, const char *what,
		      const struct vt_device_stats *stats, int device)
{
	summarize_peak(out, what, stats);
	summarize_device_view(out, report, stats, device);
	summarize_kinds(out, report, stats, device);
	summarize_tags(out, report, stats);
	struct vt_summary_rows rows = {0};
	vt_summary_stacks(out, report, stats, &rows);
	summarize_failures(out, report->snapshot, stats, device);
	summarize_exit(out, report, stats, device, &rows);
	free(rows.rows);
}

/* What CUPTI's resource domain saw: the contexts and module images that
 * take memory no allocation shows. */
static void summarize_resources(FILE *out, const struct vt_cupti_view *cupti)
{
	if (!cupti || !cupti->status.subscribed)
		return;
	uint64_t contexts = 0, modules = 0, image_bytes = 0;
	for (size_t i = 0; i < cupti->count; i++) {
		const struct vt_resource_event *event = &cupti->events[i];
		contexts += event->kind == VT_RESOURCE_CONTEXT_CREATED;
		if (event->kind == VT_RESOURCE_MODULE_LOADED) {
			modules++;
			image_bytes += event->bytes;
		}
	}
	vt_text_resources(out, PREFIX, (int64_t)contexts, (int64_t)modules, (int64_t)image_bytes);
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
		snprintf(what, sizeof(what), "device %d: %s, %s", d,
			 info->known && info->name[0] ? info->name : "unknown",
			 human(info->capacity, capacity, sizeof(capacity)));
		summarize(out, report, what, &snapshot->devices[d], d);
		any = true;
	}
	if (snapshot->host.seen) {
		summarize(out, report, "host (pinned memory)", &snapshot->host, VT_HOST_DEVICE);
		any = true;
	}
	/* Say why nothing was: no driver answered, or it had no device. */
	const struct vt_cuda_info *cuda = report->run ? &report->run->cuda : NULL;
	if (!any && cuda && !cuda->driver_version)
		fprintf(out, PREFIX "no GPU memory was allocated: no CUDA driver answered this "
				    "process (none loaded, or none it could use)\n");
	else if (!any && cuda && !cuda->device_count)
		fprintf(out,
			PREFIX "no GPU memory was allocated: the CUDA driver found no device\n");
	else if (!any)
		fprintf(out, PREFIX "no GPU memory was allocated\n");
	summarize_resources(out, report->cupti);
}
