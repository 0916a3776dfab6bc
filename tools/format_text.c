/* The full human report. */
#include <inttypes.h>
#include <string.h>

#include "formats.h"

struct text {
	FILE *out;
	const struct vt_format_options *options;
	json_t *root;
};

static const char *bold(const struct text *t)
{
	return t->options->color ? "\033[1m" : "";
}

static const char *red(const struct text *t)
{
	return t->options->color ? "\033[31m" : "";
}

static const char *plain(const struct text *t)
{
	return t->options->color ? "\033[0m" : "";
}

static double percent(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

static void run_section(const struct text *t)
{
	json_t *run = json_object_get(t->root, "run");
	fprintf(t->out, "%scommand:%s", bold(t), plain(t));
	size_t i;
	json_t *value;
	json_array_foreach (json_object_get(run, "command"), i, value) {
		fputc(' ', t->out);
		vt_print_safe(t->out, json_string_value(value));
	}
	fputc('\n', t->out);
	json_t *labels = json_object_get(run, "labels");
	if (json_object_size(labels)) {
		const char *key;
		bool first = true;
		fprintf(t->out, "%slabels:%s ", bold(t), plain(t));
		json_object_foreach (labels, key, value) {
			fputs(first ? "" : ", ", t->out);
			vt_print_safe(t->out, key);
			fputc('=', t->out);
			vt_print_safe(t->out, json_string_value(value));
			first = false;
		}
		fputc('\n', t->out);
	}
	fprintf(t->out, "process %" PRId64 " on ", vt_int(run, "pid"));
	vt_print_safe(t->out, vt_str(run, "host", "?"));
	if (vt_str(run, "rank", NULL))
		fprintf(t->out, ", rank %s", vt_str(run, "rank", ""));
	fprintf(t->out, ", %s to %s, ended by %s\n", vt_str(run, "start", "?"),
		vt_str(run, "end", "?"), vt_str(run, "ended_by", "?"));
	json_t *cuda = json_object_get(run, "cuda");
	fprintf(t->out, "CUDA runtime %" PRId64 ", driver %" PRId64 ", %" PRId64 " device(s)\n",
		vt_int(cuda, "runtime"), vt_int(cuda, "driver"), vt_int(cuda, "device_count"));
}

static void counter_rows(const struct text *t, json_t *owner, const char *array, const char *key,
			 long limit)
{
	int64_t peak = vt_int(json_object_get(owner, "peak"), "bytes");
	size_t i;
	json_t *row;
	char at[32], own[32];
	json_array_foreach (json_object_get(owner, array), i, row) {
		if ((long)i >= limit)
			break;
		int64_t bytes = vt_int(row, "at_peak_bytes");
		fputs("    ", t->out);
		vt_print_safe(t->out, vt_str(row, key, "?"));
		int width = (int)strlen(vt_str(row, key, "?"));
		fprintf(t->out,
			"%*s %12s %5.1f%%   own peak %s, %" PRId64 " allocations over the run\n",
			width < 24 ? 24 - width : 0, "", vt_human(bytes, at, sizeof(at)),
			percent(bytes, peak), vt_human(vt_int(row, "peak_bytes"), own, sizeof(own)),
			vt_int(row, "allocations"));
	}
}

static void frames(const struct text *t, int64_t stack, const char *indent)
{
	char label[1200];
	size_t i;
	json_t *frame;
	bool first = true;
	json_array_foreach (vt_stack_frames_of(t->root, stack), i, frame) {
		if (vt_frame_is_plumbing(frame))
			continue;
		fprintf(t->out, "%s%s %s\n", indent, first ? "at" : "  ",
			vt_frame_label(frame, label, sizeof(label)));
		first = false;
	}
}

static void stacks(const struct text *t, json_t *owner)
{
	json_t *list = json_object_get(owner, "stacks");
	if (!json_array_size(list))
		return;
	int64_t peak = vt_int(json_object_get(owner, "peak"), "bytes");
	char at[32];
	fprintf(t->out, "  %stop stacks at the peak:%s\n", bold(t), plain(t));
	size_t i;
	json_t *row;
	json_array_foreach (list, i, row) {
		if ((long)i >= t->options->top)
			break;
		int64_t bytes = vt_int(row, "at_peak_bytes");
		fprintf(t->out, "    #%" PRId64 " %s %.1f%% [%s], %" PRId64 " allocations\n",
			vt_int(row, "id"), vt_human(bytes, at, sizeof(at)), percent(bytes, peak),
			vt_str(row, "tag", "?"), vt_int(row, "allocations"));
		frames(t, vt_int(row, "id"), "        ");
	}
}

static void device_view(const struct text *t, json_t *device)
{
	json_t *view = json_object_get(device, "device_view");
	if (!json_is_object(view))
		return;
	char used[32], unexplained[32], tracked[32];
	json_t *at_peak = json_object_get(view, "sampled_at_peak");
	bool away = json_is_false(at_peak);
	fprintf(t->out, "  device view: peak used %s, unexplained %s %s",
		vt_human(vt_int(view, "peak_used_bytes"), used, sizeof(used)),
		away ? "at the reading nearest the peak" : "at the peak",
		vt_human(vt_int(view, "unexplained_at_peak_bytes"), unexplained,
			 sizeof(unexplained)));
	if (away)
		fprintf(t->out, " (read with %s tracked, not at the tracked peak)",
			vt_human(vt_int(view, "tracked_at_sample_bytes"), tracked,
				 sizeof(tracked)));
	fputc('\n', t->out);
}

/* Reserved beyond used is memory a pool holds that no allocation shows. */
static void pools(const struct text *t, json_t *device)
{
	size_t index;
	json_t *pool;
	json_array_foreach (json_object_get(device, "pools"), index, pool) {
		char reserved[32], peak[32], used[32];
		fprintf(t->out, "  pool %zu: reserved %s (peak %s), used %s%s\n", index,
			vt_human(vt_int(pool, "reserved_bytes"), reserved, sizeof(reserved)),
			vt_human(vt_int(pool, "reserved_peak_bytes"), peak, sizeof(peak)),
			vt_human(vt_int(pool, "used_bytes"), used, sizeof(used)),
			json_is_true(json_object_get(pool, "destroyed")) ? ", destroyed" : "");
	}
}

static void graph_memory(const struct text *t, json_t *device)
{
	json_t *graphs = json_object_get(device, "graph_memory");
	if (!json_is_object(graphs))
		return;
	char reserved[32], peak[32], used[32];
	fprintf(t->out, "  graph memory: reserved %s (peak %s), used %s\n",
		vt_human(vt_int(graphs, "reserved_bytes"), reserved, sizeof(reserved)),
		vt_human(vt_int(graphs, "reserved_peak_bytes"), peak, sizeof(peak)),
		vt_human(vt_int(graphs, "used_bytes"), used, sizeof(used)));
}

/* The device's contexts and module images, from CUPTI's resource events:
 * memory taken before and beside any allocation. */
static void resources(const struct text *t, json_t *device)
{
	json_t *events = json_object_get(json_object_get(t->root, "resources"), "events");
	json_t *ordinal = json_object_get(device, "ordinal");
	if (!json_is_array(events) || !ordinal)
		return;
	int64_t contexts = 0, modules = 0, image_bytes = 0;
	size_t i;
	json_t *event;
	json_array_foreach (events, i, event) {
		if (!json_equal(json_object_get(event, "device"),
				json_object_get(device, "ordinal")))
			continue;
		const char *name = vt_str(event, "event", "");
		contexts += strcmp(name, "context_created") == 0;
		if (strcmp(name, "module_loaded") == 0) {
			modules++;
			image_bytes += vt_int(event, "bytes");
		}
	}
	char size[32];
	fprintf(t->out,
		"  CUPTI: %" PRId64 " context%s created, %" PRId64
		" module%s loaded (%s of images)\n",
		contexts, contexts == 1 ? "" : "s", modules, modules == 1 ? "" : "s",
		vt_human(image_bytes, size, sizeof(size)));
}

static void snapshot(const struct text *t, json_t *failure)
{
	json_t *taken = json_object_get(failure, "snapshot");
	if (!json_is_object(taken))
		return;
	int64_t live = vt_int(failure, "live_bytes");
	char size[32];
	const char *tag;
	json_t *bytes;
	fprintf(t->out, "      live then:");
	bool first = true;
	json_object_foreach (json_object_get(taken, "live_by_tag"), tag, bytes) {
		fprintf(t->out, "%s %s %s (%.1f%%)", first ? "" : ",", tag,
			vt_human(json_integer_value(bytes), size, sizeof(size)),
			percent(json_integer_value(bytes), live));
		first = false;
	}
	fputc('\n', t->out);
	size_t i;
	json_t *row;
	json_array_foreach (json_object_get(taken, "top_stacks"), i, row) {
		if ((long)i >= t->options->top)
			break;
		fprintf(t->out, "      #%" PRId64 " held %s\n", vt_int(row, "stack"),
			vt_human(vt_int(row, "bytes"), size, sizeof(size)));
		frames(t, vt_int(row, "stack"), "          ");
	}
}

static void failures(const struct text *t, json_t *owner)
{
	json_t *list = json_object_get(owner, "failures");
	if (!json_array_size(list))
		return;
	fprintf(t->out, "  %s%sfailed allocations: %" PRId64 "%s\n", bold(t), red(t),
		vt_int(owner, "failed_allocations"), plain(t));
	size_t i;
	json_t *failure;
	char size[32], live[32];
	json_array_foreach (list, i, failure) {
		fprintf(t->out,
			"    %s requested by %s [%s] at %.3f s: error %" PRId64 " %s, %s live\n",
			vt_human(vt_int(failure, "bytes"), size, sizeof(size)),
			vt_str(failure, "api", "?"), vt_str(failure, "tag", "untagged"),
			(double)vt_int(failure, "at_ns") / 1e9, vt_int(failure, "error"),
			vt_str(failure, "error_name", ""),
			vt_human(vt_int(failure, "live_bytes"), live, sizeof(live)));
		if (json_is_integer(json_object_get(failure, "stack")))
			frames(t, vt_int(failure, "stack"), "        ");
		snapshot(t, failure);
	}
}

static void leaks(const struct text *t, json_t *owner)
{
	char size[32];
	fprintf(t->out, "  live at exit: %s in %" PRId64 " allocations\n",
		vt_human(vt_int(owner, "live_at_exit_bytes"), size, sizeof(size)),
		vt_int(owner, "live_at_exit_allocations"));
	size_t i;
	json_t *leak;
	json_array_foreach (json_object_get(owner, "leaks"), i, leak) {
		if ((long)i >= t->options->top)
			break;
		fprintf(t->out, "    %s in %" PRId64 " allocations [%s]",
			vt_human(vt_int(leak, "bytes"), size, sizeof(size)), vt_int(leak, "count"),
			vt_str(leak, "tag", "?"));
		if (json_is_integer(json_object_get(leak, "stack"))) {
			fprintf(t->out, " from stack #%" PRId64 "\n", vt_int(leak, "stack"));
			frames(t, vt_int(leak, "stack"), "        ");
		} else {
			fputc('\n', t->out);
		}
	}
}

static void totals(const struct text *t, json_t *owner)
{
	json_t *peak = json_object_get(owner, "peak");
	char size[32];
	fprintf(t->out, "  peak %s (%" PRId64 " bytes)",
		vt_human(vt_int(peak, "bytes"), size, sizeof(size)), vt_int(peak, "bytes"));
	if (vt_int(peak, "bytes"))
		fprintf(t->out, " at %.3f s by %s", (double)vt_int(peak, "at_ns") / 1e9,
			vt_str(peak, "api", "?"));
	fprintf(t->out, "\n  %skinds at the peak:%s\n", bold(t), plain(t));
	counter_rows(t, owner, "kinds", "kind", 1000);
	if (json_array_size(json_object_get(owner, "tags"))) {
		fprintf(t->out, "  %stags at the peak:%s\n", bold(t), plain(t));
		counter_rows(t, owner, "tags", "tag", t->options->top);
	}
	stacks(t, owner);
	device_view(t, owner);
	pools(t, owner);
	graph_memory(t, owner);
	resources(t, owner);
	failures(t, owner);
	leaks(t, owner);
}

void vt_format_text(json_t *root, const struct vt_format_options *options, FILE *out)
{
	struct text t = {out, options, root};
	run_section(&t);
	size_t i;
	json_t *device;
	char capacity[32];
	json_array_foreach (json_object_get(root, "devices"), i, device) {
		if (!vt_device_selected(device, options))
			continue;
		fprintf(out, "\n%sdevice %" PRId64 ": %s, %s%s\n", bold(&t),
			vt_int(device, "ordinal"), vt_str(device, "name", "unknown"),
			vt_human(vt_int(device, "capacity_bytes"), capacity, sizeof(capacity)),
			plain(&t));
		totals(&t, device);
	}
	json_t *host = json_object_get(root, "host");
	if (options->device < 0 && vt_int(host, "allocations")) {
		fprintf(out, "\n%shost (pinned memory)%s\n", bold(&t), plain(&t));
		totals(&t, host);
	}
}
