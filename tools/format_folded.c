/* Bytes live at the peak as folded stacks, "root;...;leaf bytes", the
 * input of flamegraph.pl, speedscope and inferno. The tag is the root
 * frame (under "device N" when there are several devices); what the listed
 * stacks do not cover is "[other stacks]" under its tag, so every device's
 * lines add up to its peak. */
#include <inttypes.h>
#include <string.h>

#include "formats.h"

/* Folded frames are separated by ';' and end at a space-then-number; keep
 * both out of names. */
static void put_frame(FILE *out, const char *name)
{
	for (const char *p = name; *p; p++)
		fputc(*p == ';' ? ':' : *p == '\n' ? ' ' : *p, out);
}

static void put_stack(FILE *out, json_t *root, int64_t id)
{
	json_t *frames = vt_stack_frames_of(root, id);
	char label[1200];
	for (size_t i = json_array_size(frames); i-- > 0;) {
		json_t *frame = json_array_get(frames, i);
		if (vt_frame_is_plumbing(frame))
			continue;
		fputc(';', out);
		put_frame(out, vt_frame_label(frame, label, sizeof(label)));
	}
}

/* Per tag, the bytes its listed stacks hold at the peak: one pass. */
static json_t *listed_by_tag(json_t *device)
{
	json_t *sums = json_object();
	size_t i;
	json_t *stack;
	json_array_foreach (json_object_get(device, "stacks"), i, stack) {
		const char *tag = vt_str(stack, "tag", "");
		json_object_set_new(
			sums, tag,
			json_integer(vt_int(sums, tag) + vt_int(stack, "at_peak_bytes")));
	}
	return sums;
}

static const char *rank_root;

static void put_root(FILE *out, const char *device_root, const char *tag)
{
	if (rank_root)
		fprintf(out, "rank %s;", rank_root);
	if (device_root)
		fprintf(out, "%s;", device_root);
	put_frame(out, tag);
}

static void fold_device(FILE *out, json_t *root, json_t *device, const char *device_root)
{
	size_t i;
	json_t *row;
	json_array_foreach (json_object_get(device, "stacks"), i, row) {
		if (vt_int(row, "at_peak_bytes") <= 0)
			continue;
		put_root(out, device_root, vt_str(row, "tag", "untagged"));
		put_stack(out, root, vt_int(row, "id"));
		fprintf(out, " %" PRId64 "\n", vt_int(row, "at_peak_bytes"));
	}
	json_t *listed = listed_by_tag(device);
	json_array_foreach (json_object_get(device, "tags"), i, row) {
		const char *tag = vt_str(row, "tag", "untagged");
		int64_t rest = vt_int(row, "at_peak_bytes") - vt_int(listed, tag);
		if (rest <= 0)
			continue;
		put_root(out, device_root, tag);
		fprintf(out, ";[other stacks] %" PRId64 "\n", rest);
	}
	json_decref(listed);
}

void vt_format_folded(json_t *root, const struct vt_format_options *options, FILE *out)
{
	rank_root = options->rank;
	json_t *devices = json_object_get(root, "devices");
	bool several = json_array_size(devices) > 1 && options->device < 0;
	size_t i;
	json_t *device;
	json_array_foreach (devices, i, device) {
		if (!vt_device_selected(device, options))
			continue;
		char name[32];
		snprintf(name, sizeof(name), "device %" PRId64, vt_int(device, "ordinal"));
		fold_device(out, root, device, several ? name : NULL);
	}
}
