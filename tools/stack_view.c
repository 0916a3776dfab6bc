#define _GNU_SOURCE
#include "stack_view.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/core/plumbing.h"
#include "formats.h"

size_t vt_stack_shown(const struct vt_report_model *report, int64_t id,
		      const struct vt_frame_model **out, size_t max)
{
	const struct vt_stack_frames *stack = vt_report_stack(report, id);
	size_t count = 0;
	for (size_t i = 0; stack && i < stack->count; i++) {
		if (vt_frame_is_plumbing(stack->frames[i]))
			continue;
		if (count < max)
			out[count] = stack->frames[i];
		count++;
	}
	return count;
}

static bool own(const struct vt_frame_model *frame, char *library, size_t size)
{
	library[0] = '\0';
	return vt_frame_own(frame->module, frame->file, frame->python, library, size);
}

/* The libraries of the folded frames, in order, each once, at most two:
 * for a Python stack its packages (the interpreter's own frames between
 * them say nothing), else the native libraries. */
static void name_libraries(const struct vt_frame_model *const *shown, size_t lead, char *via,
			   size_t size)
{
	bool python = false;
	for (size_t i = 0; i < lead; i++)
		python = python || shown[i]->python;
	size_t used = 0, named = 0;
	via[0] = '\0';
	for (size_t i = 0; i < lead && named < 3; i++) {
		char library[64];
		if (shown[i]->python != python)
			continue;
		own(shown[i], library, sizeof(library));
		if (!library[0] || strstr(via, library))
			continue;
		int wrote = snprintf(via + used, size - used, "%s%s", named ? ", " : "",
				     named == 2 ? "..." : library);
		if (wrote < 0 || (size_t)wrote >= size - used)
			break;
		used += (size_t)wrote;
		named++;
	}
}

void vt_stack_brief(const struct vt_frame_model *const *shown, size_t count,
		    struct vt_stack_brief *out)
{
	char library[64];
	out->lead = count;
	for (size_t i = 0; i < count && out->lead == count; i++)
		if (own(shown[i], library, sizeof(library)))
			out->lead = i;
	/* None is the program's: its Python lines, where it has them, else
	 * the innermost frame. */
	for (size_t i = 0; i < count && out->lead == count; i++)
		if (shown[i]->python)
			out->lead = i;
	if (out->lead == count)
		out->lead = 0;
	name_libraries(shown, out->lead, out->via, sizeof(out->via));
}

const char *vt_stack_place(const struct vt_report_model *report, int64_t id, char *key, size_t size)
{
	const struct vt_stack_frames *stack = vt_report_stack(report, id);
	char label[1200];
	size_t used = 0;
	key[0] = '\0';
	for (size_t i = 0; stack && i < stack->count; i++) {
		if (vt_frame_is_plumbing(stack->frames[i]))
			continue;
		vt_frame_label(stack->frames[i], label, sizeof(label));
		int wrote = snprintf(key + used, size - used, "%s%s", used ? " < " : "", label);
		if (wrote < 0 || (size_t)wrote >= size - used)
			break;
		used += (size_t)wrote;
	}
	if (!key[0])
		snprintf(key, size, "(no frames)");
	return key;
}

/* The frames a view shows, as indices into shown: the lead, then the
 * callers that are the program's own (all frames for a stack with none of
 * its own, or when every frame is asked for), at most max. Returns how many
 * it picked; *left is the shown frames after the lead it did not pick. */
struct picked {
	size_t index[64];
	size_t count, left;
	struct vt_stack_brief brief;
};

static void pick(const struct vt_frame_model *const *shown, size_t count,
		 const struct vt_view_options *options, struct picked *out)
{
	size_t limit = options->all_frames   ? 64
		       : options->frames > 0 ? (size_t)options->frames
					     : VT_VIEW_FRAMES;
	limit = limit > 64 ? 64 : limit;
	char library[64];
	vt_stack_brief(shown, count, &out->brief);
	if (options->all_frames)
		out->brief = (struct vt_stack_brief){0};
	bool any_own = own(shown[out->brief.lead], library, sizeof(library));
	out->count = 0;
	for (size_t i = out->brief.lead; i < count && out->count < limit; i++)
		if (i == out->brief.lead || options->all_frames || !any_own ||
		    own(shown[i], library, sizeof(library)))
			out->index[out->count++] = i;
	out->left = count - out->brief.lead - out->count;
}

static const char *plural(size_t count)
{
	return count == 1 ? "" : "s";
}

enum { MAX_SHOWN = 256 };

void vt_stack_print(FILE *out, const struct vt_report_model *report, int64_t id, const char *indent,
		    const struct vt_view_options *options)
{
	const struct vt_frame_model *shown[MAX_SHOWN];
	size_t count = vt_stack_shown(report, id, shown, MAX_SHOWN);
	count = count > MAX_SHOWN ? MAX_SHOWN : count;
	if (!count)
		return;
	struct picked picked;
	pick(shown, count, options, &picked);
	char label[1200];
	for (size_t p = 0; p < picked.count; p++) {
		size_t i = picked.index[p];
		bool inlined_in = p > 0 && picked.index[p - 1] == i - 1 && shown[i - 1]->inlined;
		fprintf(out, "%s%s%s", indent, p == 0 ? "at " : "   ",
			inlined_in ? "inlined in " : "");
		vt_print_safe(out, vt_frame_label(shown[i], label, sizeof(label)));
		if (p == 0 && picked.brief.lead)
			fprintf(out, ", via %s, %zu frame%s", picked.brief.via, picked.brief.lead,
				plural(picked.brief.lead));
		fputc('\n', out);
	}
	if (picked.left)
		fprintf(out, "%s   ... %zu more frame%s\n", indent, picked.left,
			plural(picked.left));
}

void vt_stack_picks(const struct vt_report_model *report, int64_t id,
		    const struct vt_view_options *options, struct vt_stack_picks *out)
{
	const struct vt_stack_frames *stack = vt_report_stack(report, id);
	const struct vt_frame_model *shown[MAX_SHOWN];
	size_t position[MAX_SHOWN], count = 0;
	*out = (struct vt_stack_picks){0};
	for (size_t i = 0; stack && i < stack->count && count < MAX_SHOWN; i++) {
		if (vt_frame_is_plumbing(stack->frames[i]))
			continue;
		position[count] = i;
		shown[count++] = stack->frames[i];
	}
	if (!count)
		return;
	struct picked picked;
	pick(shown, count, options, &picked);
	for (size_t p = 0; p < picked.count; p++)
		out->index[out->count++] = position[picked.index[p]];
	out->left = picked.left;
	out->folded = picked.brief.lead;
	if (picked.brief.lead)
		snprintf(out->via, sizeof(out->via), "via %s, %zu frame%s", picked.brief.via,
			 picked.brief.lead, plural(picked.brief.lead));
}

static void append(char *out, size_t size, size_t *used, const char *text)
{
	int wrote = snprintf(out + *used, size - *used, "%s", text);
	if (wrote > 0)
		*used = (size_t)wrote >= size - *used ? size - 1 : *used + (size_t)wrote;
}

const char *vt_stack_line(const struct vt_report_model *report, int64_t id,
			  const struct vt_view_options *options, size_t width, char *out,
			  size_t size)
{
	const struct vt_frame_model *shown[MAX_SHOWN];
	size_t count = vt_stack_shown(report, id, shown, MAX_SHOWN), used = 0;
	count = count > MAX_SHOWN ? MAX_SHOWN : count;
	out[0] = '\0';
	if (!count)
		return snprintf(out, size, "(no frames)"), out;
	struct picked picked;
	pick(shown, count, options, &picked);
	char label[1200];
	for (size_t p = 0; p < picked.count; p++) {
		size_t i = picked.index[p];
		bool inlined_in = p > 0 && picked.index[p - 1] == i - 1 && shown[i - 1]->inlined;
		append(out, size, &used, p == 0 ? "" : inlined_in ? " inlined in " : " < ");
		append(out, size, &used, vt_frame_label(shown[i], label, sizeof(label)));
	}
	if (picked.left)
		append(out, size, &used, " < ...");
	if (picked.brief.lead) {
		snprintf(label, sizeof(label), ", via %s, %zu frame%s", picked.brief.via,
			 picked.brief.lead, plural(picked.brief.lead));
		append(out, size, &used, label);
	}
	if (width >= 4 && used > width && width < size)
		memcpy(out + width - 3, "...", 4);
	return out;
}

bool vt_stack_group_peak_exact(const struct vt_stack_group *group)
{
	return group->peak_low == group->sum.peak_bytes;
}

static void add_member(struct vt_stack_group *group, const struct vt_stack_row *row)
{
	const struct vt_counters *c = &row->counters;
	group->members++;
	group->members_at_peak += c->at_peak_bytes > 0;
	group->sum.peak_bytes += c->peak_bytes;
	group->sum.at_peak_bytes += c->at_peak_bytes;
	group->sum.live_at_exit_bytes += c->live_at_exit_bytes;
	group->sum.allocations += c->allocations;
	group->sum.frees += c->frees;
	group->sum.bytes_allocated += c->bytes_allocated;
	/* The group held at least each member's own peak, its bytes at the
	 * device's peak and its bytes at exit (or at the dump) together: when
	 * every member holds its own peak at one of those moments (stacks
	 * whose allocations stay until exit), the bounds meet. */
	int64_t low = c->peak_bytes;
	if (group->sum.at_peak_bytes > low)
		low = group->sum.at_peak_bytes;
	if (group->sum.live_at_exit_bytes > low)
		low = group->sum.live_at_exit_bytes;
	if (low > group->peak_low)
		group->peak_low = low;
}

/* A group's own high point, where the report replayed it (group_peaks):
 * the same stacks as the report's row, or nothing is known. */
static void exact_peak(const struct vt_report_model *report, const struct vt_owner *owner,
		       struct vt_stack_group *group)
{
	const struct vt_stack_frames *first = vt_report_stack(report, group->id);
	bool host = owner == &report->host;
	for (size_t i = 0; first && group->members > 1 && i < report->group_peak_count; i++) {
		const struct vt_group_peak *row = &report->group_peaks[i];
		if (row->device.has == host || (!host && row->device.value != owner->ordinal) ||
		    row->group != first->group || (size_t)row->members != group->members ||
		    strcmp(row->tag, group->tag ? group->tag : "") != 0)
			continue;
		group->sum.peak_bytes = group->peak_low = row->peak_bytes;
		return;
	}
}

static int by_bytes(const void *x, const void *y)
{
	const struct vt_stack_group *a = x, *b = y;
	if (a->sum.at_peak_bytes != b->sum.at_peak_bytes)
		return a->sum.at_peak_bytes < b->sum.at_peak_bytes ? 1 : -1;
	if (a->sum.peak_bytes != b->sum.peak_bytes)
		return a->sum.peak_bytes < b->sum.peak_bytes ? 1 : -1;
	return (a->id > b->id) - (a->id < b->id);
}

/* The index key of a row: its tag and its place, the tag's length first
 * so that no tag (which may hold any character) can run into the place.
 * Allocated, so that no tag or place can overflow it; NULL when out of
 * memory. */
static char *row_key(const struct vt_report_model *report, const char *tag, const int64_t *stack)
{
	char place[4096], *key;
	tag = tag ? tag : "";
	if (stack)
		vt_stack_place(report, *stack, place, sizeof(place));
	else
		snprintf(place, sizeof(place), "(no stack)");
	return asprintf(&key, "%zu:%s\n%s", strlen(tag), tag, place) < 0 ? NULL : key;
}

/* The position of key in positions (key -> index), or count, which is
 * then added; SIZE_MAX when out of memory. The index is never written
 * out, so a place cut inside a character needs no UTF-8 check. */
static size_t position_of(json_t *positions, const char *key, size_t count)
{
	json_t *position = json_object_get(positions, key);
	if (position)
		return (size_t)json_integer_value(position);
	json_t *index = json_integer((json_int_t)count);
	if (!index || json_object_set_new_nocheck(positions, key, index) != 0)
		return SIZE_MAX;
	return count;
}

/* Ranks by row key, so a leak finds the row with its tag at its place. */
json_t *vt_stack_group_ranks(const struct vt_report_model *report,
			     const struct vt_stack_group *groups, size_t count)
{
	json_t *ranks = json_object();
	/* the first group at a place with a tag keeps it: added last */
	for (size_t i = count; ranks && i-- > 0;) {
		char *key = row_key(report, groups[i].tag, &groups[i].id);
		bool failed = !key || json_object_set_new_nocheck(
					      ranks, key, json_integer((json_int_t)i + 1)) != 0;
		free(key);
		if (failed) {
			json_decref(ranks);
			return NULL;
		}
	}
	return ranks;
}

size_t vt_stack_group_rank(const struct vt_report_model *report, json_t *ranks, const char *tag,
			   int64_t id)
{
	char *key = row_key(report, tag, &id);
	json_t *rank = key ? json_object_get(ranks, key) : NULL;
	free(key);
	return rank ? (size_t)json_integer_value(rank) : 0;
}

size_t vt_stack_groups(const struct vt_report_model *report, const struct vt_owner *owner,
		       struct vt_stack_group **out)
{
	*out = NULL;
	struct vt_stack_group *groups =
		calloc(owner->stack_count ? owner->stack_count : 1, sizeof(*groups));
	json_t *positions = json_object();
	size_t count = 0;
	bool ok = groups && positions;
	for (size_t i = 0; ok && i < owner->stack_count; i++) {
		const struct vt_stack_row *row = &owner->stacks[i];
		char *key = row_key(report, row->tag, &row->id);
		size_t at = key ? position_of(positions, key, count) : SIZE_MAX;
		free(key);
		if (!(ok = at != SIZE_MAX))
			break;
		if (at == count)
			groups[count++] = (struct vt_stack_group){.id = row->id, .tag = row->tag};
		add_member(&groups[at], row);
	}
	json_decref(positions);
	if (!ok || !count) {
		free(groups);
		return 0;
	}
	for (size_t i = 0; i < count; i++)
		exact_peak(report, owner, &groups[i]);
	qsort(groups, count, sizeof(*groups), by_bytes);
	*out = groups;
	return count;
}

void vt_live_at_exit(const struct vt_owner *owner, struct vt_live_at_exit *out)
{
	int64_t reserved = 0;
	for (size_t i = 0; i < owner->kind_count; i++)
		if (strcmp(owner->kinds[i].kind, "graph") == 0)
			reserved = owner->kinds[i].counters.live_at_exit_bytes;
	*out = (struct vt_live_at_exit){owner->live_at_exit_bytes - reserved,
					owner->live_at_exit_allocations - (reserved > 0), reserved};
}

/* Largest first; of equal ones, the report's order. */
static int leaks_by_bytes(const void *x, const void *y)
{
	const struct vt_leak_group *a = x, *b = y;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return (a->first > b->first) - (a->first < b->first);
}

size_t vt_leak_groups(const struct vt_report_model *report, const struct vt_owner *owner,
		      struct vt_leak_group **out)
{
	struct vt_leak_group *rows =
		malloc((owner->leak_count ? owner->leak_count : 1) * sizeof(*rows));
	json_t *positions = json_object();
	size_t count = 0;
	bool ok = rows && positions;
	for (size_t i = 0; ok && i < owner->leak_count; i++) {
		const struct vt_leak_model *leak = &owner->leaks[i];
		char *key = row_key(report, leak->tag, leak->stack.has ? &leak->stack.value : NULL);
		size_t at = key ? position_of(positions, key, count) : SIZE_MAX;
		free(key);
		if (!(ok = at != SIZE_MAX))
			break;
		if (at == count)
			rows[count++] = (struct vt_leak_group){leak, 0, 0};
		rows[at].bytes += leak->bytes;
		rows[at].allocations += leak->count;
	}
	json_decref(positions);
	if (!ok || !count) {
		free(rows);
		rows = NULL;
		count = 0;
	}
	/* Leaks of several stacks at one place add up to a row that may
	 * outgrow the rows listed before it: a cut to the top rows kept
	 * smaller ones and left the largest out. */
	if (count)
		qsort(rows, count, sizeof(*rows), leaks_by_bytes);
	*out = rows;
	return count;
}

void vt_stack_rest(const struct vt_owner *owner, struct vt_stack_rest *out)
{
	int64_t listed = 0, listed_stacks = 0;
	for (size_t i = 0; i < owner->stack_count; i++) {
		listed += owner->stacks[i].counters.at_peak_bytes;
		listed_stacks += owner->stacks[i].counters.at_peak_bytes > 0;
	}
	*out = (struct vt_stack_rest){0};
	if (owner->stacks_at_peak.has && owner->stacks_at_peak_bytes.has) {
		out->stacks = (struct vt_maybe){true, owner->stacks_at_peak.value - listed_stacks};
		out->bytes = owner->stacks_at_peak_bytes.value - listed;
		out->no_stack_bytes = owner->peak.bytes - owner->stacks_at_peak_bytes.value;
	} else {
		out->bytes = owner->peak.bytes - listed;
	}
}

/* 4076 as "4,076". */
static const char *grouped(int64_t value, char *buf, size_t size)
{
	char digits[32];
	int length = snprintf(digits, sizeof(digits), "%" PRId64, value);
	size_t used = 0;
	for (int i = 0; i < length && used + 2 < size; i++) {
		if (i && digits[i - 1] != '-' && (length - i) % 3 == 0)
			buf[used++] = ',';
		buf[used++] = digits[i];
	}
	buf[used] = '\0';
	return buf;
}

const char *vt_stack_rest_text(const struct vt_stack_rest *rest, char *buf, size_t size)
{
	char count[32], bytes[32], no_stack[32];
	buf[0] = '\0';
	int used = 0;
	if (rest->bytes > 0 || (rest->stacks.has && rest->stacks.value > 0)) {
		if (rest->stacks.has)
			used = snprintf(buf, size, "%s more stack%s, %s",
					grouped(rest->stacks.value, count, sizeof(count)),
					rest->stacks.value == 1 ? "" : "s",
					vt_human(rest->bytes, bytes, sizeof(bytes)));
		else
			used = snprintf(buf, size, "more stacks, %s",
					vt_human(rest->bytes, bytes, sizeof(bytes)));
	}
	if (rest->no_stack_bytes > 0 && used >= 0 && (size_t)used < size)
		snprintf(buf + used, size - (size_t)used, "%s%s with no stack", used ? "; " : "",
			 vt_human(rest->no_stack_bytes, no_stack, sizeof(no_stack)));
	return buf;
}
