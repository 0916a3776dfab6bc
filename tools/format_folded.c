/* Bytes live at the peak as folded stacks, "root;...;leaf bytes", the
 * input of flamegraph.pl, speedscope and inferno. The tag is the root
 * frame (under "device N" when there are several devices); stacks at the
 * same place are one line (stack_view.h); what the listed stacks do not cover is "[other stacks]"
 * under its tag, so every device's lines add up to its peak. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json_build.h"
#include "formats.h"
#include "stack_view.h"

/* Folded frames are separated by ';' and lines by '\n': a ';' in a name
 * becomes ':', and the rest as the text format writes it (a newline as
 * "\n", other controls, C1 controls and bytes that are not UTF-8 as
 * \xNN), so that no name splits a line or moves the terminal the lines
 * are read on. */
static void put_frame(FILE *out, const char *name)
{
	char *copy = strdup(name);
	if (!copy)
		return;
	for (char *p = copy; *p; p++)
		*p = *p == ';' ? ':' : *p;
	vt_print_safe(out, copy);
	free(copy);
}

static void put_stack(FILE *out, const struct vt_report_model *report, int64_t id)
{
	const struct vt_stack_frames *stack = vt_report_stack(report, id);
	char label[1200];
	for (size_t i = stack ? stack->count : 0; i-- > 0;) {
		if (vt_frame_is_plumbing(stack->frames[i]))
			continue;
		fputc(';', out);
		put_frame(out, vt_frame_label(stack->frames[i], label, sizeof(label)));
		if (stack->frames[i]->inlined)
			fputs(" [inlined]", out);
	}
}

/* Per tag, the bytes its listed stacks hold at the peak: one pass, into a
 * hash by tag. */
static json_t *listed_by_tag(const struct vt_owner *device)
{
	json_t *sums = json_object();
	for (size_t i = 0; i < device->stack_count; i++) {
		const struct vt_stack_row *stack = &device->stacks[i];
		json_t *sum = json_object_get(sums, stack->tag);
		vt_json_put(sums, stack->tag,
			    json_integer(json_integer_value(sum) + stack->counters.at_peak_bytes));
	}
	return sums;
}

static const char *rank_root;

static void put_root(FILE *out, const char *device_root, const char *tag)
{
	if (rank_root) {
		fputs("rank ", out);
		put_frame(out, rank_root);
		fputc(';', out);
	}
	if (device_root)
		fprintf(out, "%s;", device_root);
	put_frame(out, tag);
}

static void fold_device(FILE *out, const struct vt_report_model *report,
			const struct vt_owner *device, const char *device_root)
{
	struct vt_stack_group *groups;
	size_t count = vt_stack_groups(report, device, &groups);
	for (size_t i = 0; i < count; i++) {
		const struct vt_stack_group *group = &groups[i];
		if (group->sum.at_peak_bytes <= 0)
			continue;
		put_root(out, device_root, group->tag);
		put_stack(out, report, group->id);
		fprintf(out, " %" PRId64 "\n", group->sum.at_peak_bytes);
	}
	free(groups);
	/* A stack has one tag (its frames with that tag). In reports written
	 * before that, a stack was listed under the tag of its latest
	 * allocation and could hold bytes of other tags (one line of code run
	 * in several NVTX ranges): then some tag's listed stacks hold more
	 * than the tag does, the tags' remainders would count those bytes
	 * twice, and which tags the unlisted bytes have is not known. They are
	 * one line then, under no tag, so the lines still add up to the peak. */
	json_t *listed = listed_by_tag(device);
	int64_t listed_total = 0;
	bool mixed = false;
	for (size_t i = 0; i < device->stack_count; i++)
		listed_total += device->stacks[i].counters.at_peak_bytes;
	for (size_t i = 0; i < device->tag_count; i++)
		mixed = mixed ||
			device->tags[i].counters.at_peak_bytes <
				json_integer_value(json_object_get(listed, device->tags[i].tag));
	for (size_t i = 0; i < device->tag_count && !mixed; i++) {
		const struct vt_tag_row *row = &device->tags[i];
		int64_t rest = row->counters.at_peak_bytes -
			       json_integer_value(json_object_get(listed, row->tag));
		if (rest <= 0)
			continue;
		put_root(out, device_root, row->tag);
		fprintf(out, ";[other stacks] %" PRId64 "\n", rest);
	}
	int64_t unlisted = device->peak.bytes - listed_total;
	if (mixed && unlisted > 0) {
		if (rank_root)
			fprintf(out, "rank %s;", rank_root);
		if (device_root)
			fprintf(out, "%s;", device_root);
		fprintf(out, "[other stacks] %" PRId64 "\n", unlisted);
	}
	json_decref(listed);
}

void vt_format_folded(const struct vt_report_model *report, const struct vt_format_options *options,
		      FILE *out)
{
	rank_root = options->rank;
	bool several = report->device_count > 1 && options->device < 0;
	for (size_t i = 0; i < report->device_count; i++) {
		const struct vt_owner *device = &report->devices[i];
		if (!vt_device_selected(device, options))
			continue;
		char name[32];
		snprintf(name, sizeof(name), "device %" PRId64, device->ordinal);
		fold_device(out, report, device, several ? name : NULL);
	}
}
