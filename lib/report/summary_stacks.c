/* The summary's stacks: one row per place, ranked, each led by the
 * program's own innermost line with the library frames inside it folded,
 * and what the rows leave out of the peak, so they add up to it. The same
 * rules as the tool's listings (tools/stack_view.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../core/plumbing.h"
#include "../core/python_code.h"
#include "../core/size.h"
#include "../core/stacks.h"
#include "../core/tags.h"
#include "report.h"
#include "stack_frames.h"
#include "summary_stacks.h"
#include "text_lines.h"

#define PREFIX         "vramtrace: "
#define SUMMARY_STACKS 5
#define SUMMARY_FRAMES 4
#define MAX_SHOWN      128

/* A stack's frames less plumbing, inline chains expanded, innermost first. */
struct shown_frames {
	struct vt_frame frames[MAX_SHOWN];
	size_t count;
};

static void collect_frames(struct vt_symbolizer *symbolizer, uint32_t stack,
			   struct shown_frames *out)
{
	const uintptr_t *pcs;
	unsigned depth = vt_stack_frames(stack, &pcs);
	struct vt_frame chain[VT_INLINE_MAX];
	out->count = 0;
	for (unsigned f = 0; f < depth && out->count < MAX_SHOWN; f++) {
		unsigned count = vt_symbolize_chain(symbolizer, pcs[f], chain, VT_INLINE_MAX);
		for (unsigned c = 0; c < count && out->count < MAX_SHOWN; c++)
			if (!vt_plumbing_frame(chain[c].module, chain[c].function))
				out->frames[out->count++] = chain[c];
	}
}

static bool own(const struct vt_frame *frame, char *library, size_t size)
{
	library[0] = '\0';
	return vt_frame_own(frame->module, frame->file, frame->python, library, size);
}

/* The program's own innermost frame; else the innermost Python frame; else
 * the innermost frame. */
static size_t lead_of(const struct shown_frames *shown)
{
	char library[64];
	for (size_t i = 0; i < shown->count; i++)
		if (own(&shown->frames[i], library, sizeof(library)))
			return i;
	for (size_t i = 0; i < shown->count; i++)
		if (shown->frames[i].python)
			return i;
	return 0;
}

/* "numba" or "numba, cupy": what the folded frames belong to; for a
 * Python stack its packages (the interpreter's own frames between them say
 * nothing), else the native libraries. */
static void name_libraries(const struct shown_frames *shown, size_t lead, char *via, size_t size)
{
	bool python = false;
	for (size_t i = 0; i < lead; i++)
		python = python || shown->frames[i].python;
	size_t used = 0, named = 0;
	via[0] = '\0';
	for (size_t i = 0; i < lead && named < 3; i++) {
		char library[64];
		if (shown->frames[i].python != python)
			continue;
		own(&shown->frames[i], library, sizeof(library));
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

/* The frame's place as a terminal may show it: names come from the
 * program (a file name given to Python's compile() may hold a newline or
 * an escape sequence). */
static void describe_frame(const struct vt_frame *frame, char *out, size_t size)
{
	char place[1600];
	vt_text_safe_copy(out, size, vt_frame_place(frame, place, sizeof(place)));
}

void vt_report_describe_stack(struct vt_symbolizer *symbolizer, uint32_t stack, char *out,
			      size_t size)
{
	struct shown_frames *shown = malloc(sizeof(*shown));
	out[0] = '\0';
	if (!shown)
		return;
	collect_frames(symbolizer, stack, shown);
	if (shown->count)
		describe_frame(&shown->frames[lead_of(shown)], out, size);
	free(shown);
}

/* Appends "PREFIX        <a><b><c>\n" to out; false when it did not fit. */
static bool add_line(char *out, size_t size, size_t *used, const char *a, const char *b,
		     const char *c)
{
	int wrote = snprintf(out + *used, size - *used, PREFIX "        %s%s%s\n", a, b, c);
	if (wrote < 0 || (size_t)wrote >= size - *used)
		return false;
	*used += (size_t)wrote;
	return true;
}

static const char *human(uint64_t bytes, char *buf, unsigned size)
{
	vt_size_format(bytes, buf, size);
	return buf;
}

/* The stack as the summary shows it, one frame a line. */
static void render(const struct shown_frames *shown, char *out, size_t size)
{
	size_t lead = lead_of(shown), used = 0, lines = 0, last = lead;
	char library[64], text[1600], via[200] = "";
	out[0] = '\0';
	if (!shown->count)
		return;
	bool own_lead = own(&shown->frames[lead], library, sizeof(library));
	if (lead) {
		char names[160];
		name_libraries(shown, lead, names, sizeof(names));
		snprintf(via, sizeof(via), ", via %s, %zu frame%s", names, lead,
			 lead == 1 ? "" : "s");
	}
	for (size_t i = lead; i < shown->count && lines < SUMMARY_FRAMES; i++) {
		if (i != lead && own_lead && !own(&shown->frames[i], library, sizeof(library)))
			continue;
		bool inlined_in = i > lead && last == i - 1 && shown->frames[i - 1].inlined;
		describe_frame(&shown->frames[i], text, sizeof(text));
		if (!add_line(out, size, &used,
			      i == lead    ? "at "
			      : inlined_in ? "   inlined in "
					   : "   ",
			      text, i == lead ? via : ""))
			return;
		lines++;
		last = i;
	}
	size_t left = shown->count - lead - lines;
	char count[48];
	snprintf(count, sizeof(count), "%zu more frame%s", left, left == 1 ? "" : "s");
	if (left)
		add_line(out, size, &used, "   ... ", count, "");
}

/* FNV-1a of the frames' places: stacks at the same places are one row. */
static uint64_t place_of(const struct shown_frames *shown)
{
	uint64_t hash = 0xcbf29ce484222325ull;
	char place[1600];
	for (size_t i = 0; i < shown->count; i++) {
		for (const unsigned char *c = (const unsigned char *)vt_frame_place(
			     &shown->frames[i], place, sizeof(place));
		     *c; c++)
			hash = (hash ^ *c) * 0x100000001b3ull;
		hash = (hash ^ 0xff) * 0x100000001b3ull;
	}
	return hash;
}

static int more_bytes(const void *x, const void *y)
{
	const struct vt_summary_row *a = x, *b = y;
	return a->bytes != b->bytes ? (a->bytes < b->bytes ? 1 : -1)
				    : (int)a->first - (int)b->first;
}

/* The considered stacks as rows, one per (tag, place), largest first. */
static size_t group_rows(const struct vt_report *report, const struct vt_device_stats *stats,
			 const uint32_t *order, uint32_t count, struct vt_summary_rows *rows)
{
	struct shown_frames *shown = malloc(sizeof(*shown));
	size_t groups = 0;
	for (uint32_t i = 0; shown && i < count; i++) {
		const struct vt_counter *counter = &stats->stacks.items[order[i]];
		collect_frames(report->symbolizer, order[i], shown);
		uint64_t place = place_of(shown);
		size_t g = 0;
		while (g < groups &&
		       (rows->rows[g].place != place || rows->rows[g].tag != counter->tag))
			g++;
		struct vt_summary_row *row = &rows->rows[g];
		if (g == groups) {
			*row = (struct vt_summary_row){
				.first = order[i], .place = place, .tag = counter->tag};
			render(shown, row->text, sizeof(row->text));
			groups++;
		}
		row->bytes += vt_stats_at_peak(stats, counter);
		row->members++;
	}
	free(shown);
	qsort(rows->rows, groups, sizeof(*rows->rows), more_bytes);
	return groups;
}

static bool has_python(uint32_t stack)
{
	const uintptr_t *frames;
	unsigned depth = vt_stack_frames(stack, &frames);
	for (unsigned f = 0; f < depth; f++)
		if (vt_py_is_frame(frames[f]))
			return true;
	return false;
}

/* Python lines under a framework's caching allocator (PyTorch, XLA, CuPy)
 * name the tensor that made the cache grow, not each tensor. */
static bool framework_cache_grew(const struct vt_report *report, const struct vt_summary_rows *rows)
{
	static const char *const frameworks[] = {"pytorch", "xla", "cupy", "tensorflow"};
	for (size_t i = 0; i < rows->count && i < SUMMARY_STACKS; i++)
		for (size_t f = 0; f < sizeof(frameworks) / sizeof(frameworks[0]); f++)
			if (strcmp(vt_tag_name(rows->rows[i].tag), frameworks[f]) == 0 &&
			    has_python(rows->rows[i].first) && !report->framework_cache_off)
				return true;
	return false;
}

/* 4076 as "4,076". */
static const char *grouped(uint64_t value, char *buf, size_t size)
{
	char digits[32];
	int length = snprintf(digits, sizeof(digits), "%" PRIu64, value);
	size_t used = 0;
	for (int i = 0; i < length && used + 2 < size; i++) {
		if (i && (length - i) % 3 == 0)
			buf[used++] = ',';
		buf[used++] = digits[i];
	}
	buf[used] = '\0';
	return buf;
}

/* What the shown rows leave out: the other stacks holding bytes at the
 * peak, and bytes allocated where no stack was taken. */
static void summarize_rest(FILE *out, const struct vt_device_stats *stats,
			   const struct vt_summary_rows *rows, size_t shown)
{
	uint64_t stacks = 0, stacked = 0, listed = 0, listed_stacks = 0;
	for (uint32_t i = 0; i < stats->stacks.size; i++) {
		uint64_t bytes = vt_stats_at_peak(stats, &stats->stacks.items[i]);
		stacks += bytes > 0;
		stacked += bytes;
	}
	for (size_t i = 0; i < shown; i++) {
		listed += rows->rows[i].bytes;
		listed_stacks += rows->rows[i].members; /* members hold bytes at the peak */
	}
	char count[32], size[32], none[32];
	uint64_t no_stack = stats->peak > stacked ? stats->peak - stacked : 0;
	if (stacked > listed)
		fprintf(out, PREFIX "    and %s more stack%s, %s",
			grouped(stacks - listed_stacks, count, sizeof(count)),
			stacks - listed_stacks == 1 ? "" : "s",
			human(stacked - listed, size, sizeof(size)));
	if (no_stack)
		fprintf(out, "%s%s with no stack", stacked > listed ? "; " : PREFIX "    and ",
			human(no_stack, none, sizeof(none)));
	if (stacked > listed || no_stack)
		fputc('\n', out);
}

void vt_summary_stacks(FILE *out, const struct vt_report *report,
		       const struct vt_device_stats *stats, struct vt_summary_rows *rows)
{
	enum { CONSIDERED = 4 * SUMMARY_STACKS };
	uint32_t order[CONSIDERED];
	struct vt_top_entry scratch[CONSIDERED];
	uint32_t count = vt_report_top_stacks(stats, CONSIDERED, order, scratch);
	rows->count = 0;
	/* Only stacks holding bytes at the peak make its picture. */
	while (count && vt_stats_at_peak(stats, &stats->stacks.items[order[count - 1]]) == 0)
		count--;
	rows->rows = count ? malloc(count * sizeof(*rows->rows)) : NULL;
	if (!rows->rows)
		return;
	rows->count = group_rows(report, stats, order, count, rows);
	size_t shown = rows->count < SUMMARY_STACKS ? rows->count : SUMMARY_STACKS;
	char size[32];
	fprintf(out, PREFIX "  top stacks at the peak:\n");
	for (size_t i = 0; i < shown; i++) {
		const struct vt_summary_row *row = &rows->rows[i];
		fprintf(out, PREFIX "    #%zu %s %.1f%% [", i + 1,
			human(row->bytes, size, sizeof(size)),
			stats->peak ? 100.0 * (double)row->bytes / (double)stats->peak : 0.0);
		vt_text_safe(out, vt_tag_name(row->tag));
		fputc(']', out);
		if (row->members > 1)
			fprintf(out, ", %" PRIu32 " stacks at these lines", row->members);
		fputc('\n', out);
		fputs(row->text, out);
	}
	summarize_rest(out, stats, rows, shown);
	if (framework_cache_grew(report, rows))
		fprintf(out,
			PREFIX "    (each Python line above is where a framework's cache grew; "
			       "`vramtrace run --no-framework-cache` shows each tensor)\n");
	rows->count = shown;
}

size_t vt_summary_rank(const struct vt_report *report, const struct vt_summary_rows *rows,
		       uint32_t stack, uint32_t tag)
{
	struct shown_frames *shown = malloc(sizeof(*shown));
	size_t rank = 0;
	if (!shown)
		return 0;
	collect_frames(report->symbolizer, stack, shown);
	uint64_t place = place_of(shown);
	for (size_t i = 0; i < rows->count && !rank; i++)
		if (rows->rows[i].place == place && rows->rows[i].tag == tag)
			rank = i + 1;
	free(shown);
	return rank;
}
