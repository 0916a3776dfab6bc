/* The full human report. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/report/text_lines.h"
#include "formats.h"
#include "stack_view.h"

struct text {
	FILE *out;
	const struct vt_format_options *options;
	const struct vt_report_model *report;
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

static const char * or (const char *text, const char *fallback)
{
	return text ? text : fallback;
}

static const char *plural(int64_t count)
{
	return count == 1 ? "" : "s";
}

/* The versions, where the program loaded them; no driver is why a
 * report is empty. */
static void cuda_line(FILE *out, const struct vt_cuda *cuda)
{
	if (cuda->runtime.has)
		fprintf(out, "CUDA runtime %" PRId64, cuda->runtime.value);
	else
		fputs("CUDA runtime not seen (none shared loaded; a static one is invisible)", out);
	if (cuda->driver.value)
		fprintf(out, ", driver %" PRId64, cuda->driver.value);
	else
		fputs(", no driver answered (none loaded, or none the program could use)", out);
	fprintf(out, ", %" PRId64 " device%s\n", cuda->device_count, plural(cuda->device_count));
}

static void run_section(const struct text *t)
{
	const struct vt_run_model *run = &t->report->run;
	fprintf(t->out, "%scommand:%s", bold(t), plain(t));
	for (size_t i = 0; i < run->command_count; i++) {
		fputc(' ', t->out);
		vt_print_safe(t->out, run->command[i]);
	}
	fputc('\n', t->out);
	if (run->label_count) {
		fprintf(t->out, "%slabels:%s ", bold(t), plain(t));
		for (size_t i = 0; i < run->label_count; i++) {
			fputs(i ? ", " : "", t->out);
			vt_print_safe(t->out, run->labels[i].key);
			fputc('=', t->out);
			vt_print_safe(t->out, run->labels[i].value);
		}
		fputc('\n', t->out);
	}
	fprintf(t->out, "process %" PRId64 " on ", run->pid);
	vt_print_safe(t->out, or (run->host, "?"));
	if (run->rank) {
		fputs(", rank ", t->out);
		vt_print_safe(t->out, run->rank);
	}
	fputs(", ", t->out);
	vt_print_safe(t->out, or (run->start, "?"));
	fputs(" to ", t->out);
	vt_print_safe(t->out, or (run->end, "?"));
	fputs(", ended by ", t->out);
	vt_print_safe(t->out, or (run->ended_by, "?"));
	fputc('\n', t->out);
	cuda_line(t->out, &run->cuda);
}

static void counter_row(const struct text *t, const char *name, const struct vt_counters *row,
			int64_t peak)
{
	vt_text_counter_row(t->out, "", name, row->at_peak_bytes, peak, row->peak_bytes,
			    row->allocations, "allocation");
}

/* Graph memory is the driver's reservation: what the program made of it
 * is its allocation nodes (as the exit summary says). */
static void kind_row(const struct text *t, const struct vt_owner *owner,
		     const struct vt_kind_row *kind)
{
	if (strcmp(kind->kind, "graph") != 0 || !owner->graph_memory.present)
		counter_row(t, kind->kind, &kind->counters, owner->peak.bytes);
	else
		vt_text_counter_row(t->out, "", kind->kind, kind->counters.at_peak_bytes,
				    owner->peak.bytes, kind->counters.peak_bytes,
				    owner->graph_memory.allocation_nodes, "allocation node");
}

static void frames(const struct text *t, int64_t stack, const char *indent)
{
	vt_stack_print(t->out, t->report, stack, indent, &t->options->view);
}

/* A group's own peak: exact, or the bounds the report allows when several
 * stacks' peaks may not have coincided. */
static void group_peak(const struct text *t, const struct vt_stack_group *group)
{
	char low[32], high[32];
	if (vt_stack_group_peak_exact(group))
		fprintf(t->out, "own peak %s", vt_human(group->sum.peak_bytes, high, sizeof(high)));
	else
		fprintf(t->out, "own peak %s to %s", vt_human(group->peak_low, low, sizeof(low)),
			vt_human(group->sum.peak_bytes, high, sizeof(high)));
}

static void stack_group(const struct text *t, const struct vt_owner *owner,
			const struct vt_stack_group *group, size_t rank)
{
	char at[32];
	int64_t bytes = group->sum.at_peak_bytes;
	fprintf(t->out, "    #%zu %s %.1f%% [", rank, vt_human(bytes, at, sizeof(at)),
		percent(bytes, owner->peak.bytes));
	vt_print_safe(t->out, group->tag);
	fprintf(t->out, "], %" PRId64 " allocation%s, ", group->sum.allocations,
		plural(group->sum.allocations));
	group_peak(t, group);
	if (group->members > 1)
		fprintf(t->out, "; %zu stacks at these lines", group->members);
	fputc('\n', t->out);
	frames(t, group->id, "        ");
}

/* One row per place, ranked; then what the rows leave out of the peak, so
 * the listing adds up to it. */
static void stacks(const struct text *t, const struct vt_owner *owner)
{
	struct vt_stack_rest rest;
	vt_stack_rest(owner, &rest);
	char rest_text[160];
	if (!owner->stack_count && !vt_stack_rest_text(&rest, rest_text, sizeof(rest_text))[0])
		return;
	struct vt_stack_group *groups;
	size_t count = vt_stack_groups(t->report, owner, &groups);
	fprintf(t->out, "  %stop stacks at the peak:%s\n", bold(t), plain(t));
	size_t shown = 0;
	for (; shown < count && (long)shown < t->options->top; shown++)
		stack_group(t, owner, &groups[shown], shown + 1);
	for (size_t i = shown; i < count; i++) {
		rest.bytes += groups[i].sum.at_peak_bytes;
		if (rest.stacks.has)
			rest.stacks.value += (int64_t)groups[i].members;
	}
	free(groups);
	if (vt_stack_rest_text(&rest, rest_text, sizeof(rest_text))[0])
		fprintf(t->out, "    and %s\n", rest_text);
}

static void device_view(const struct text *t, const struct vt_owner *device)
{
	const struct vt_device_view_model *view = &device->device_view;
	vt_text_contexts(t->out, "", device->contexts);
	if (!view->present)
		return;
	vt_text_device_view(
		t->out, "",
		&(struct vt_text_view){view->peak_used_bytes, view->unexplained_at_peak_bytes,
				       view->tracked_at_sample_bytes, view->away_from_peak});
}

/* Reserved beyond used is memory a pool holds that no allocation shows. */
static void pools(const struct text *t, const struct vt_owner *device)
{
	for (size_t index = 0; index < device->pool_count; index++) {
		const struct vt_pool *pool = &device->pools[index];
		char reserved[32], peak[32], used[32];
		fprintf(t->out, "  pool %zu: reserved %s (peak %s), used %s%s\n", index,
			vt_human(pool->reserved_bytes, reserved, sizeof(reserved)),
			vt_human(pool->reserved_peak_bytes, peak, sizeof(peak)),
			vt_human(pool->used_bytes, used, sizeof(used)),
			pool->destroyed ? ", destroyed" : "");
	}
}

static void graph_memory(const struct text *t, const struct vt_owner *device)
{
	const struct vt_graph_memory *graphs = &device->graph_memory;
	if (!graphs->present)
		return;
	char reserved[32], peak[32], used[32];
	fprintf(t->out, "  graph memory: reserved %s (peak %s), used %s\n",
		vt_human(graphs->reserved_bytes, reserved, sizeof(reserved)),
		vt_human(graphs->reserved_peak_bytes, peak, sizeof(peak)),
		vt_human(graphs->used_bytes, used, sizeof(used)));
}

/* The device's contexts and module images, from CUPTI's resource events:
 * memory taken before and beside any allocation. */
static void resources(const struct text *t, const struct vt_owner *device, bool is_device)
{
	if (!t->report->has_resources || !is_device)
		return;
	int64_t contexts = 0, modules = 0, image_bytes = 0;
	for (size_t i = 0; i < t->report->resource_count; i++) {
		const struct vt_resource_event_model *event = &t->report->resources[i];
		if (!event->device.has || event->device.value != device->ordinal)
			continue;
		const char *name = or (event->event, "");
		contexts += strcmp(name, "context_created") == 0;
		if (strcmp(name, "module_loaded") == 0) {
			modules++;
			image_bytes += event->bytes;
		}
	}
	vt_text_resources(t->out, "  ", contexts, modules, image_bytes);
}

static void snapshot(const struct text *t, const struct vt_failure_model *failure)
{
	if (!failure->has_snapshot)
		return;
	char size[32];
	if (failure->live_by_tag_count)
		fprintf(t->out, "      live then:");
	/* --top bounds the tags named, as every other list: a run with 10,000
	 * tags made one line of 200 KB per failure. */
	size_t shown = failure->live_by_tag_count;
	if (shown > (size_t)t->options->top)
		shown = (size_t)t->options->top;
	int64_t rest = 0;
	for (size_t i = 0; i < failure->live_by_tag_count; i++) {
		const struct vt_tag_bytes_model *tag = &failure->live_by_tag[i];
		if (i >= shown) {
			rest += tag->bytes;
			continue;
		}
		fprintf(t->out, "%s ", i ? "," : "");
		vt_print_safe(t->out, tag->tag);
		fprintf(t->out, " %s (%.1f%%)", vt_human(tag->bytes, size, sizeof(size)),
			percent(tag->bytes, failure->live_bytes));
	}
	if (failure->live_by_tag_count > shown)
		vt_text_more_tags(t->out, (int64_t)(failure->live_by_tag_count - shown), rest);
	if (failure->live_by_tag_count)
		fputc('\n', t->out);
	for (size_t i = 0; i < failure->top_stack_count && (long)i < t->options->top; i++) {
		const struct vt_top_stack *row = &failure->top_stacks[i];
		fprintf(t->out, "      #%zu held %s\n", i + 1,
			vt_human(row->bytes, size, sizeof(size)));
		frames(t, row->stack, "          ");
	}
}

static void failures(const struct text *t, const struct vt_owner *owner)
{
	if (!owner->failure_count)
		return;
	fprintf(t->out, "  %s%sfailed allocations: %" PRId64 "%s\n", bold(t), red(t),
		owner->failed_allocations, plain(t));
	size_t listed = owner->failure_count;
	if (listed > (size_t)t->options->top)
		listed = (size_t)t->options->top;
	for (size_t i = 0; i < listed; i++) {
		const struct vt_failure_model *failure = &owner->failures[i];
		char api[256], tag[1024], error[256];
		vt_text_failure(
			t->out, "",
			&(struct vt_text_failure){
				failure->bytes, vt_safe(failure->api, "?", api, sizeof(api)),
				vt_safe(failure->tag, "untagged", tag, sizeof(tag)),
				failure->error_name
					? vt_safe(failure->error_name, "", error, sizeof(error))
					: NULL,
				failure->error, failure->at_ns, failure->live_bytes});
		if (failure->stack.has)
			frames(t, failure->stack.value, "        ");
		snapshot(t, failure);
	}
	/* The report keeps 64 failures in all: the rest were left unsaid. */
	if (owner->failed_allocations > (int64_t)listed)
		vt_text_more_failures(t->out, "", owner->failed_allocations - (int64_t)listed);
}

static void leaks(const struct text *t, const struct vt_owner *owner)
{
	char size[32];
	/* The graphs' reservation (one entry of the kind graph) is the
	 * driver's, not the program's. */
	struct vt_live_at_exit live;
	vt_live_at_exit(owner, &live);
	vt_text_live_at_exit(t->out, "", live.bytes, live.allocations, live.graph_reserved);
	fputc('\n', t->out);
	struct vt_leak_group *rows;
	size_t count = vt_leak_groups(t->report, owner, &rows);
	struct vt_stack_group *groups;
	size_t group_count = vt_stack_groups(t->report, owner, &groups);
	if (group_count > (size_t)t->options->top)
		group_count = (size_t)t->options->top; /* only the listed ones */
	json_t *ranks = vt_stack_group_ranks(t->report, groups, group_count);
	int64_t rest_bytes = live.bytes, rest_count = live.allocations;
	for (size_t i = 0; i < count && (long)i < t->options->top; i++) {
		const struct vt_leak_group *row = &rows[i];
		rest_bytes -= row->bytes;
		rest_count -= row->allocations;
		fprintf(t->out, "    %s in %" PRId64 " allocation%s [",
			vt_human(row->bytes, size, sizeof(size)), row->allocations,
			plural(row->allocations));
		vt_print_safe(t->out, row->first->tag);
		fputc(']', t->out);
		const struct vt_maybe *stack = &row->first->stack;
		size_t rank = stack->has ? vt_stack_group_rank(t->report, ranks, row->first->tag,
							       stack->value)
					 : 0;
		if (rank)
			fprintf(t->out, ", stack #%zu above", rank);
		fputc('\n', t->out);
		if (stack->has)
			frames(t, stack->value, "        ");
	}
	/* What --top and the report's own bound leave out, so that the rows
	 * add up to what was live. */
	if (rest_count > 0)
		fprintf(t->out, "    and %" PRId64 " more allocation%s, %s\n", rest_count,
			plural(rest_count), vt_human(rest_bytes, size, sizeof(size)));
	json_decref(ranks);
	free(groups);
	free(rows);
}

static void totals(const struct text *t, const struct vt_owner *owner, bool is_device)
{
	const struct vt_peak *peak = &owner->peak;
	char api[256];
	vt_text_peak(t->out, "", peak->bytes, peak->at_ns,
		     vt_safe(peak->api, "?", api, sizeof(api)));
	vt_print_levels(t->out, owner, "  ");
	if (owner->kind_count)
		fprintf(t->out, "  %skinds at the peak:%s\n", bold(t), plain(t));
	for (size_t i = 0; i < owner->kind_count; i++)
		kind_row(t, owner, &owner->kinds[i]);
	if (owner->tag_count) {
		fprintf(t->out, "  %stags at the peak:%s\n", bold(t), plain(t));
		int64_t rest = 0;
		for (size_t i = 0; i < owner->tag_count; i++) {
			if ((long)i < t->options->top)
				counter_row(t, owner->tags[i].tag, &owner->tags[i].counters,
					    peak->bytes);
			else
				rest += owner->tags[i].counters.at_peak_bytes;
		}
		/* What --top leaves out, so that the rows add up to the peak, as
		 * the summary at exit says it. */
		if ((long)owner->tag_count > t->options->top) {
			char size[32];
			size_t more = owner->tag_count - (size_t)t->options->top;
			fprintf(t->out, "    and %zu more tag%s, %s at the peak\n", more,
				plural((int64_t)more), vt_human(rest, size, sizeof(size)));
		}
	}
	stacks(t, owner);
	device_view(t, owner);
	pools(t, owner);
	graph_memory(t, owner);
	resources(t, owner, is_device);
	failures(t, owner);
	leaks(t, owner);
}

void vt_format_text(const struct vt_report_model *report, const struct vt_format_options *options,
		    FILE *out)
{
	struct text t = {out, options, report};
	run_section(&t);
	char capacity[32];
	for (size_t i = 0; i < report->device_count; i++) {
		const struct vt_owner *device = &report->devices[i];
		if (!vt_device_selected(device, options))
			continue;
		fprintf(out, "\n%sdevice %" PRId64 ": ", bold(&t), device->ordinal);
		vt_print_safe(out, or (device->name, "unknown"));
		fprintf(out, ", %s%s\n",
			vt_human(device->capacity_bytes.value, capacity, sizeof(capacity)),
			plain(&t));
		totals(&t, device, true);
	}
	if (options->device < 0 && (report->host.allocations || report->host.failed_allocations)) {
		fprintf(out, "\n%shost (pinned memory)%s\n", bold(&t), plain(&t));
		totals(&t, &report->host, false);
	}
}
