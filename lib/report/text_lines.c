#include "text_lines.h"

#include <inttypes.h>
#include <string.h>

#include "../core/size.h"
#include "../core/utf8.h"

static const char *plural(int64_t count)
{
	return count == 1 ? "" : "s";
}

static double percent(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The length of the UTF-8 character at c (left bytes) that a terminal
 * shows as text, or 0: a malformed sequence, or a C1 control (U+0080 to
 * U+009F, which some terminals obey as escapes). */
static size_t printable_utf8(const unsigned char *c, size_t left)
{
	size_t length = vt_utf8_length(c, left);
	return length == 2 && c[0] == 0xc2 && c[1] < 0xa0 ? 0 : length;
}

/* The piece of text that stands for the character at c (left bytes) on a
 * terminal, into piece (at least 5 bytes); how many bytes of c it took
 * in *taken. Returns the piece's length. */
static size_t safe_piece(const unsigned char *c, size_t left, char *piece, size_t *taken)
{
	size_t length = *c < 0x80 ? 1 : printable_utf8(c, left);
	*taken = length ? length : 1;
	if (*c == '\n' || *c == '\t') {
		piece[0] = '\\';
		piece[1] = *c == '\n' ? 'n' : 't';
		return 2;
	}
	if (*c < 0x20 || *c == 0x7f || !length)
		return (size_t)snprintf(piece, 5, "\\x%02x", *c);
	memcpy(piece, c, length);
	return length;
}

void vt_text_safe(FILE *out, const char *text)
{
	const unsigned char *c = (const unsigned char *)(text ? text : "");
	char piece[8];
	for (size_t left = strlen((const char *)c), taken; left; c += taken, left -= taken)
		fwrite(piece, 1, safe_piece(c, left, piece, &taken), out);
}

void vt_text_safe_copy(char *out, size_t size, const char *text)
{
	const unsigned char *c = (const unsigned char *)(text ? text : "");
	size_t used = 0;
	char piece[8];
	if (!size)
		return;
	for (size_t left = strlen((const char *)c), taken; left; c += taken, left -= taken) {
		size_t length = safe_piece(c, left, piece, &taken);
		if (used + length >= size)
			break; /* whole pieces only */
		memcpy(out + used, piece, length);
		used += length;
	}
	out[used] = '\0';
}

const char *vt_text_size(int64_t bytes, char *buf, unsigned size)
{
	if (bytes >= 0 || size < 2) {
		vt_size_format(bytes < 0 ? 0 : (uint64_t)bytes, buf, size);
		return buf;
	}
	buf[0] = '-';
	vt_size_format(-(uint64_t)bytes, buf + 1, size - 1);
	return buf;
}

void vt_text_peak(FILE *out, const char *prefix, int64_t bytes, int64_t at_ns, const char *api)
{
	char size[32];
	fprintf(out, "%s  peak %s (%" PRId64 " bytes)", prefix,
		vt_text_size(bytes, size, sizeof(size)), bytes);
	if (bytes)
		fprintf(out, " at %.3f s by %s", (double)at_ns / 1e9, api ? api : "?");
	fputc('\n', out);
}

void vt_text_counter_row(FILE *out, const char *prefix, const char *name, int64_t at_peak,
			 int64_t owner_peak, int64_t own_peak, int64_t count, const char *counted)
{
	char at[32], own[32];
	fprintf(out, "%s    ", prefix);
	vt_text_safe(out, name);
	int width = (int)strlen(name ? name : "");
	fprintf(out, "%*s %12s %5.1f%%   own peak %s, %" PRId64 " %s%s over the run\n",
		width < 24 ? 24 - width : 0, "", vt_text_size(at_peak, at, sizeof(at)),
		percent(at_peak, owner_peak), vt_text_size(own_peak, own, sizeof(own)), count,
		counted, plural(count));
}

void vt_text_contexts(FILE *out, const char *prefix, int64_t contexts)
{
	if (contexts)
		fprintf(out, "%s  %" PRId64 " context%s made on it\n", prefix, contexts,
			plural(contexts));
}

void vt_text_device_view(FILE *out, const char *prefix, const struct vt_text_view *view)
{
	char used[32], unexplained[32], tracked[32];
	fprintf(out, "%s  device view: peak used %s, unexplained %s %s", prefix,
		vt_text_size(view->peak_used, used, sizeof(used)),
		view->away_from_peak ? "at the reading nearest the peak" : "at the peak",
		vt_text_size(view->unexplained, unexplained, sizeof(unexplained)));
	if (view->away_from_peak)
		fprintf(out, " (read with %s tracked, not at the tracked peak)",
			vt_text_size(view->tracked_at_sample, tracked, sizeof(tracked)));
	fputs(" (no allocation call shows it: contexts, module images, other processes)\n", out);
}

void vt_text_failure(FILE *out, const char *prefix, const struct vt_text_failure *failure)
{
	char size[32], live[32];
	vt_size_format(failure->bytes, size, sizeof(size));
	fprintf(out, "%s    %s requested by %s [", prefix, size, failure->api ? failure->api : "?");
	vt_text_safe(out, failure->tag ? failure->tag : "untagged");
	fprintf(out, "] at %.3f s: ", (double)failure->at_ns / 1e9);
	if (failure->error_name)
		fprintf(out, "%s (%" PRId64 ")", failure->error_name, failure->error);
	else
		fprintf(out, "error %" PRId64, failure->error);
	fprintf(out, ", %s live\n", vt_text_size(failure->live_bytes, live, sizeof(live)));
}

void vt_text_more_failures(FILE *out, const char *prefix, int64_t more)
{
	fprintf(out, "%s    and %" PRId64 " more failed allocation%s, not listed\n", prefix, more,
		plural(more));
}

void vt_text_more_tags(FILE *out, int64_t more, int64_t bytes)
{
	char size[32];
	fprintf(out, ", and %" PRId64 " more tag%s %s", more, plural(more),
		vt_text_size(bytes, size, sizeof(size)));
}

void vt_text_live_at_exit(FILE *out, const char *prefix, int64_t live_bytes, int64_t live_count,
			  int64_t graph_reserved)
{
	char size[32], graph[32];
	fprintf(out, "%s  live at exit: %s in %" PRId64 " allocation%s", prefix,
		vt_text_size(live_bytes, size, sizeof(size)), live_count, plural(live_count));
	if (graph_reserved > 0)
		fprintf(out, "; graph memory reserved, not trimmed: %s",
			vt_text_size(graph_reserved, graph, sizeof(graph)));
}

void vt_text_resources(FILE *out, const char *prefix, int64_t contexts, int64_t modules,
		       int64_t image_bytes)
{
	char size[32];
	fprintf(out,
		"%sCUPTI: %" PRId64 " context%s created, %" PRId64
		" module%s loaded (%s of images)\n",
		prefix, contexts, plural(contexts), modules, plural(modules),
		vt_text_size(image_bytes, size, sizeof(size)));
}
