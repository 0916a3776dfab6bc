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

#define PREFIX         "vramtrace: "
#define SUMMARY_STACKS 5
#define SUMMARY_FRAMES 4

static const char *human(uint64_t bytes, char *buf, unsigned size)
{
	vt_size_format(bytes, buf, size);
	return buf;
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
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
		const struct vt_counter *kind = &stats->kinds[k];
		if (kind->allocs == 0)
			continue;
		fprintf(out,
			PREFIX "  %-12s %12s at the peak (own peak %s; %" PRIu64
			       " allocation%s over the run)\n",
			vt_kind_name((enum vt_kind)k),
			human(vt_stats_at_peak(stats, kind), at_peak, sizeof(at_peak)),
			human(kind->peak, peak, sizeof(peak)), kind->allocs,
			kind->allocs == 1 ? "" : "s");
	}
}

/* The top tags (VRAMTRACE_TOP), the rest on one line: a program may name
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
	char at_peak[32], peak[32];
	fprintf(out, PREFIX "  by tag at the peak:\n");
	uint64_t rest = 0;
	for (uint32_t i = 0; i < count; i++) {
		const struct vt_counter *tag = &stats->tags.items[order[i]];
		uint64_t bytes = vt_stats_at_peak(stats, tag);
		if (report->top && i >= report->top) {
			rest += bytes;
			continue;
		}
		fprintf(out, PREFIX "    %-20s %12s %5.1f%%  (own peak %s)\n",
			vt_tag_name(order[i]), human(bytes, at_peak, sizeof(at_peak)),
			percent(bytes, stats->peak), human(tag->peak, peak, sizeof(peak)));
	}
	if (report->top && count > report->top)
		fprintf(out, PREFIX "    and %" PRIu32 " more tags, %s at the peak\n",
			count - report->top, human(rest, at_peak, sizeof(at_peak)));
	free(order);
}

/* The summary leaves out the frames that say nothing about who allocated
 * (core/plumbing.h). */
static bool interesting(const struct vt_frame *frame)
{
	return !vt_plumbing_frame(frame->module, frame->function);
}

static void describe_frame(const struct vt_frame *frame, char *out, size_t size)
{
	const char *module = strrchr(frame->module, '/');
	module = module ? module + 1 : frame->module;
	if (frame->file[0]) {
		const char *file = strrchr(frame->file, '/');
		snprintf(out, size, "%s (%s:%d)", frame->function[0] ? frame->function : "?",
			 file ? file + 1 : frame->file, frame->line);
	} else {
		snprintf(out, size, "%s (%s+0x%" PRIx64 ")",
			 frame->function[0] ? frame->function : "?", module, frame->offset);
	}
}

static bool has_python(const uintptr_t *frames, unsigned depth)
{
	for (unsigned f = 0; f < depth; f++)
		if (vt_py_is_frame(frames[f]))
			return true;
	return false;
}

/* The next frame of a stack the summary shows, from *at on: not plumbing,
 * and one of its Python frames where it has them (the program's own
 * lines). */
static bool next_shown(struct vt_symbolizer *symbolizer, const uintptr_t *frames, unsigned depth,
		       bool python, unsigned *at, struct vt_frame *frame)
{
	for (; *at < depth; (*at)++) {
		if (python && !vt_py_is_frame(frames[*at]))
			continue;
		vt_symbolize(symbolizer, frames[*at], frame);
		if (interesting(frame)) {
			(*at)++;
			return true;
		}
	}
	return false;
}

void vt_report_describe_stack(struct vt_symbolizer *symbolizer, uint32_t stack, char *out,
			      size_t size)
{
	const uintptr_t *frames;
	unsigned depth = vt_stack_frames(stack, &frames), at = 0;
	struct vt_frame frame;
	out[0] = '\0';
	if (next_shown(symbolizer, frames, depth, has_python(frames, depth), &at, &frame))
		describe_frame(&frame, out, size);
}

/* A stack as the summary shows it: its first shown frames, one per line,
 * at the level of source lines. */
static void render_stack(const struct vt_report *report, uint32_t stack, char *out, size_t size)
{
	const uintptr_t *frames;
	unsigned depth = vt_stack_frames(stack, &frames), at = 0;
	bool python = has_python(frames, depth);
	size_t used = 0;
	struct vt_frame frame;
	out[0] = '\0';
	for (unsigned shown = 0; shown < SUMMARY_FRAMES &&
				 next_shown(report->symbolizer, frames, depth, python, &at, &frame);
	     shown++) {
		char text[1200];
		describe_frame(&frame, text, sizeof(text));
		int wrote = snprintf(out + used, size - used, PREFIX "        %s %s\n",
				     shown ? "  " : "at", text);
		if (wrote < 0 || (size_t)wrote >= size - used)
			break;
		used += (size_t)wrote;
	}
}

/* Stacks that differ only below the source line (two calls on one line,
 * say) look the same here: they are shown once, their bytes together. */
struct shown_stack {
	uint32_t first, also; /* ids; also counts the others merged in */
	uint64_t bytes;
	uint32_t tag;
	char text[SUMMARY_FRAMES * 1300];
};

static int more_bytes(const void *x, const void *y)
{
	const struct shown_stack *a = x, *b = y;
	return a->bytes != b->bytes ? (a->bytes < b->bytes ? 1 : -1)
				    : (int)a->first - (int)b->first;
}

static size_t merge_shown(const struct vt_report *report, const struct vt_device_stats *stats,
			  const uint32_t *order, uint32_t count, struct shown_stack *shown)
{
	size_t groups = 0;
	for (uint32_t i = 0; i < count; i++) {
		const struct vt_counter *counter = &stats->stacks.items[order[i]];
		struct shown_stack *entry = &shown[groups];
		render_stack(report, order[i], entry->text, sizeof(entry->text));
		size_t g = 0;
		while (g < groups && strcmp(shown[g].text, entry->text) != 0)
			g++;
		if (g < groups) {
			shown[g].bytes += vt_stats_at_peak(stats, counter);
			shown[g].also++;
			continue;
		}
		entry->first = order[i];
		entry->also = 0;
		entry->bytes = vt_stats_at_peak(stats, counter);
		entry->tag = counter->tag;
		groups++;
	}
	qsort(shown, groups, sizeof(*shown), more_bytes);
	return groups;
}

/* Python lines under a framework's caching allocator (PyTorch, XLA, CuPy)
 * name the tensor that made the cache grow, not each tensor. */
static bool framework_cache_grew(const struct vt_report *report, const struct shown_stack *shown,
				 size_t groups)
{
	static const char *const frameworks[] = {"pytorch", "xla", "cupy", "tensorflow"};
	for (size_t i = 0; i < groups && i < SUMMARY_STACKS; i++) {
		const uintptr_t *frames;
		unsigned depth = vt_stack_frames(shown[i].first, &frames);
		for (size_t f = 0; f < sizeof(frameworks) / sizeof(frameworks[0]); f++)
			if (strcmp(vt_tag_name(shown[i].tag), frameworks[f]) == 0 &&
			    has_python(frames, depth) && !report->framework_cache_off)
				return true;
	}
	return false;
}

static void summarize_stacks(FILE *out, const struct vt_report *report,
			     const struct vt_device_stats *stats)
{
	enum { CONSIDERED = 4 * SUMMARY_STACKS };
	uint32_t order[CONSIDERED];
	struct vt_top_entry scratch[CONSIDERED];
	uint32_t count = vt_report_top_stacks(stats, CONSIDERED, order, scratch);
	struct shown_stack *shown = count ? malloc(count * sizeof(*shown)) : NULL;
	if (!shown)
		return;
	size_t groups = merge_shown(report, stats, order, count, shown);
	char size[32];
	fprintf(out, PREFIX "  top stacks at the peak:\n");
	for (size_t i = 0; i < groups && i < SUMMARY_STACKS; i++) {
		fprintf(out, PREFIX "    #%" PRIu32, shown[i].first);
		if (shown[i].also)
			fprintf(out, " (and %" PRIu32 " more stack%s on the same lines)",
				shown[i].also, shown[i].also == 1 ? "" : "s");
		fprintf(out, " %s %.1f%% [%s]\n", human(shown[i].bytes, size, sizeof(size)),
			percent(shown[i].bytes, stats->peak), vt_tag_name(shown[i].tag));
		fputs(shown[i].text, out);
	}
	if (framework_cache_grew(report, shown, groups))
		fprintf(out,
			PREFIX "    (each Python line above is where a framework's cache grew; "
			       "`vramtrace run --no-framework-cache` shows each tensor)\n");
	free(shown);
}

/* The tags named on an out-of-memory line; the report lists them all. */
#define SNAPSHOT_TAGS 10

static void summarize_snapshot(FILE *out, const struct vt_oom_snapshot *snapshot, uint64_t live)
{
	char size[32];
	fprintf(out, PREFIX "      live then by tag:");
	uint32_t shown = snapshot->tag_count < SNAPSHOT_TAGS ? snapshot->tag_count : SNAPSHOT_TAGS;
	uint64_t rest = 0;
	for (uint32_t i = 0; i < snapshot->tag_count; i++) {
		if (i >= shown) {
			rest += snapshot->tags[i].bytes;
			continue;
		}
		fprintf(out, "%s %s %s (%.1f%%)", i ? "," : "", vt_tag_name(snapshot->tags[i].tag),
			human(snapshot->tags[i].bytes, size, sizeof(size)),
			percent(snapshot->tags[i].bytes, live));
	}
	if (snapshot->tag_count > shown)
		fprintf(out, ", and %" PRIu32 " more tags %s", snapshot->tag_count - shown,
			human(rest, size, sizeof(size)));
	fputc('\n', out);
}

static void summarize_failures(FILE *out, const struct vt_snapshot *snapshot,
			       const struct vt_device_stats *stats, int device)
{
	if (stats->failures == 0)
		return;
	fprintf(out, PREFIX "  failed allocations: %" PRIu64 "\n", stats->failures);
	char size[32], live[32];
	for (unsigned i = 0; i < snapshot->failure_count; i++) {
		const struct vt_failure *failure = &snapshot->failures[i];
		if (failure->device != device)
			continue;
		const char *name = vt_cuda_error_name(failure->error);
		fprintf(out,
			PREFIX "    %s requested by %s at %.3f s [%s]: error %d%s%s%s, %s live\n",
			human(failure->bytes, size, sizeof(size)), failure->api,
			(double)failure->at_ns / 1e9, vt_tag_name(failure->tag), failure->error,
			name ? " (" : "", name ? name : "", name ? ")" : "",
			human(failure->live_bytes, live, sizeof(live)));
		if (failure->snapshot)
			summarize_snapshot(out, failure->snapshot, failure->live_bytes);
	}
}

static void summarize_exit(FILE *out, const struct vt_report *report,
			   const struct vt_device_stats *stats, int device)
{
	char size[32];
	fprintf(out, PREFIX "  live at exit: %s in %" PRIu64 " allocations",
		human(stats->live, size, sizeof(size)), stats->live_count);
	for (uint64_t i = 0; report->leaks && i < report->leaks->group_count; i++) {
		const struct vt_leak *leak = &report->leaks->groups[i];
		if (leak->device != device)
			continue;
		fprintf(out, "; most from stack #%" PRIu32 " [%s]: %s in %" PRIu64, leak->stack,
			vt_tag_name(leak->tag), human(leak->bytes, size, sizeof(size)),
			leak->count);
		break;
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
	if (stats->contexts)
		fprintf(out, PREFIX "  %" PRIu64 " context%s made on it\n", stats->contexts,
			stats->contexts == 1 ? "" : "s");
	if (!view || !view->sampled)
		return;
	char used[32], unexplained[32], tracked[32];
	uint64_t outside = view->used_at_best > view->tracked_at_best
				   ? view->used_at_best - view->tracked_at_best
				   : 0;
	fprintf(out, PREFIX "  device view: %s used %s, %s of it outside any allocation\n",
		human(view->used_at_best, used, sizeof(used)),
		view->tracked_at_best == stats->peak ? "at the peak" : "at the reading nearest it",
		human(outside, unexplained, sizeof(unexplained)));
	if (view->tracked_at_best != stats->peak)
		fprintf(out, PREFIX "    (read with %s tracked, not at the tracked peak)\n",
			human(view->tracked_at_best, tracked, sizeof(tracked)));
}

static void summarize(FILE *out, const struct vt_report *report, const char *what,
		      const struct vt_device_stats *stats, int device)
{
	summarize_peak(out, what, stats);
	summarize_device_view(out, report, stats, device);
	summarize_kinds(out, stats);
	summarize_tags(out, report, stats);
	summarize_stacks(out, report, stats);
	summarize_failures(out, report->snapshot, stats, device);
	summarize_exit(out, report, stats, device);
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
	char size[32];
	fprintf(out,
		PREFIX "CUPTI: %" PRIu64 " context%s created, %" PRIu64
		       " module%s loaded (%s of images)\n",
		contexts, contexts == 1 ? "" : "s", modules, modules == 1 ? "" : "s",
		human(image_bytes, size, sizeof(size)));
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
		summarize(out, report, what, &snapshot->devices[d], d);
		any = true;
	}
	if (snapshot->host.seen) {
		summarize(out, report, "host (pinned)", &snapshot->host, VT_HOST_DEVICE);
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
