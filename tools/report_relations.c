/* What no true report can say, found in the model once it is filled:
 * parts above their whole (tags, kinds and stacks at the peak above the
 * peak, counted kinds only; a row's tags or stacks above the row, a snapshot's tags or
 * stacks above what was live, a row's lowest above its highest), rows out
 * of the order of time,
 * a name listed twice (a diff would invent a change from it), fewer
 * stacks at the peak than are listed, and a merged report whose summary
 * disagrees with its ranks or holds one run twice. Each refusal names the
 * field. */
#define _GNU_SOURCE
#include "report_relations.h"

#include "../lib/core/event.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct relations {
	char *error;
	size_t size;
};

static bool fail(struct relations *r, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

static bool fail(struct relations *r, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(r->error, r->size, format, args);
	va_end(args);
	return false;
}

/* Counts are below 2^62 (checked), so a sum of fewer than 2^62 of them
 * cannot overflow 128 bits; it is compared, never printed, past 2^63. */
typedef __int128 total;

static bool not_above(struct relations *r, total part, int64_t whole, const char *path,
		      const char *what, const char *whole_name)
{
	if (part <= whole)
		return true;
	char text[48];
	snprintf(text, sizeof(text), "%" PRId64, part > INT64_MAX ? INT64_MAX : (int64_t)part);
	return fail(r, "%s: %s%s%s%s bytes, more than %s %" PRId64, path, what, *what ? " " : "",
		    part > INT64_MAX ? "more than " : "", text, whole_name, whole);
}

/* Whether names[i] is the first of its name; seen indexes them. */
static bool first_time(json_t *seen, const char *name, bool *ok)
{
	if (json_object_get(seen, name))
		return false;
	*ok = json_object_set_new_nocheck(seen, name, json_true()) == 0;
	return true;
}

/* Whether a kind's bytes count in its owner's peak: those only shown
 * (another process's memory opened here, the program's own pages pinned)
 * may be live at the peak beyond it, and a kind this reader does not know
 * is given the benefit of the doubt. */
static bool counted(const char *name)
{
	for (int kind = 0; kind < VT_KIND_COUNT; kind++)
		if (strcmp(vt_kind_name((enum vt_kind)kind), name) == 0)
			return vt_kind_is_counted((enum vt_kind)kind);
	return false;
}

static bool kinds(struct relations *r, const struct vt_owner *owner, const char *path)
{
	json_t *seen = json_object();
	bool ok = seen != NULL;
	total at_peak = 0;
	for (size_t i = 0; ok && i < owner->kind_count; i++) {
		const struct vt_kind_row *kind = &owner->kinds[i];
		char where[300];
		snprintf(where, sizeof(where), "%s.kinds[%zu]", path, i);
		if (!first_time(seen, kind->kind, &ok))
			ok = fail(r, "%s: kind \"%s\" is listed twice", where, kind->kind);
		else
			ok = ok &&
			     not_above(r, kind->counters.at_peak_bytes, kind->counters.peak_bytes,
				       where, "at_peak_bytes", "its own peak_bytes");
		if (counted(kind->kind))
			at_peak += kind->counters.at_peak_bytes;
	}
	json_decref(seen);
	char where[300];
	snprintf(where, sizeof(where), "%s.kinds", path);
	return ok && not_above(r, at_peak, owner->peak.bytes, where, "at the peak they hold",
			       "the peak's");
}

/* The bytes a list of stacks (a snapshot's, a row's) holds. */
static total stacks_hold(const struct vt_top_stack *stacks, size_t count)
{
	total bytes = 0;
	for (size_t i = 0; i < count; i++)
		bytes += stacks[i].bytes;
	return bytes;
}

static bool tags(struct relations *r, const struct vt_owner *owner, const char *path)
{
	json_t *seen = json_object();
	bool ok = seen != NULL;
	total at_peak = 0;
	for (size_t i = 0; ok && i < owner->tag_count; i++) {
		const struct vt_tag_row *tag = &owner->tags[i];
		char where[300];
		snprintf(where, sizeof(where), "%s.tags[%zu]", path, i);
		if (!first_time(seen, tag->tag, &ok))
			ok = fail(r, "%s: tag \"%.64s\" is listed twice", where, tag->tag);
		else
			ok = ok &&
			     not_above(r, tag->counters.at_peak_bytes, tag->counters.peak_bytes,
				       where, "at_peak_bytes", "its own peak_bytes") &&
			     not_above(r, tag->counters.peak_bytes, owner->peak.bytes, where,
				       "peak_bytes", "the peak's");
		at_peak += tag->counters.at_peak_bytes;
	}
	json_decref(seen);
	char where[300];
	snprintf(where, sizeof(where), "%s.tags", path);
	return ok && not_above(r, at_peak, owner->peak.bytes, where, "at the peak they hold",
			       "the peak's");
}

static bool stacks(struct relations *r, const struct vt_owner *owner, const char *path)
{
	json_t *seen = json_object();
	bool ok = seen != NULL;
	total at_peak = 0;
	int64_t holding = 0;
	for (size_t i = 0; ok && i < owner->stack_count; i++) {
		const struct vt_stack_row *stack = &owner->stacks[i];
		char where[300], id[32];
		snprintf(where, sizeof(where), "%s.stacks[%zu]", path, i);
		snprintf(id, sizeof(id), "%" PRId64, stack->id);
		if (!first_time(seen, id, &ok))
			ok = fail(r, "%s: stack %s is listed twice", where, id);
		else
			ok = ok &&
			     not_above(r, stack->counters.at_peak_bytes, stack->counters.peak_bytes,
				       where, "at_peak_bytes", "its own peak_bytes") &&
			     not_above(r, stack->counters.peak_bytes, owner->peak.bytes, where,
				       "peak_bytes", "the peak's");
		at_peak += stack->counters.at_peak_bytes;
		holding += stack->counters.at_peak_bytes > 0;
	}
	json_decref(seen);
	char where[300];
	snprintf(where, sizeof(where), "%s.stacks", path);
	if (!ok ||
	    !not_above(r, at_peak, owner->peak.bytes, where, "at the peak they hold", "the peak's"))
		return false;
	if (owner->stacks_at_peak.has && owner->stacks_at_peak.value < holding)
		return fail(r,
			    "%s.stacks_at_peak: %" PRId64 " is fewer than the %" PRId64
			    " stacks listed with bytes at the peak",
			    path, owner->stacks_at_peak.value, holding);
	if (!owner->stacks_at_peak_bytes.has)
		return true;
	snprintf(where, sizeof(where), "%s.stacks_at_peak_bytes", path);
	if (owner->stacks_at_peak_bytes.value < at_peak)
		return fail(r, "%s: %" PRId64 " is less than the listed stacks' %" PRId64, where,
			    owner->stacks_at_peak_bytes.value, (int64_t)at_peak);
	return not_above(r, owner->stacks_at_peak_bytes.value, owner->peak.bytes, where, "",
			 "the peak's");
}

static bool row(struct relations *r, const struct vt_timeline_row_model *row, int64_t peak,
		const char *where)
{
	int64_t high = row->max_bytes.has ? row->max_bytes.value : row->live_bytes;
	total tags = 0;
	for (size_t t = 0; t < row->by_tag_count; t++)
		tags += row->by_tag[t].bytes;
	if (row->min_bytes.has && row->min_bytes.value > high)
		return fail(r, "%s: min_bytes %" PRId64 " is above max_bytes %" PRId64, where,
			    row->min_bytes.value, high);
	if (row->end_bytes.has && row->end_bytes.value > high)
		return fail(r, "%s: end_bytes %" PRId64 " is above max_bytes %" PRId64, where,
			    row->end_bytes.value, high);
	if (row->min_bytes.has && row->end_bytes.has && row->min_bytes.value > row->end_bytes.value)
		return fail(r, "%s: min_bytes %" PRId64 " is above end_bytes %" PRId64, where,
			    row->min_bytes.value, row->end_bytes.value);
	total stacks = stacks_hold(row->top_stacks, row->top_stack_count);
	if (row->other_stacks_bytes.has)
		stacks += row->other_stacks_bytes.value;
	return not_above(r, high, peak, where, "max_bytes", "the peak's") &&
	       not_above(r, tags, high, where, "by_tag holds", "the row's") &&
	       (!row->has_stacks ||
		not_above(r, stacks, high, where, "top_stacks and other_stacks_bytes hold",
			  "the row's"));
}

/* Rows in the order of time: a row dated before the one above it would
 * be drawn, hovered and zoomed as if time ran backwards. */
static bool timeline(struct relations *r, const struct vt_owner *owner, const char *path)
{
	for (size_t i = 0; i < owner->timeline.row_count; i++) {
		const struct vt_timeline_row_model *rows = owner->timeline.rows;
		char where[300];
		snprintf(where, sizeof(where), "%s.timeline.rows[%zu]", path, i);
		if (i > 0 && rows[i].t_ns < rows[i - 1].t_ns)
			return fail(r,
				    "%s.t_ns: %" PRId64 " is before the row above it (%" PRId64 ")",
				    where, rows[i].t_ns, rows[i - 1].t_ns);
		if (!row(r, &rows[i], owner->peak.bytes, where))
			return false;
	}
	return true;
}

static bool failures(struct relations *r, const struct vt_owner *owner, const char *path)
{
	for (size_t i = 0; i < owner->failure_count; i++) {
		const struct vt_failure_model *failure = &owner->failures[i];
		total live = 0;
		for (size_t t = 0; t < failure->live_by_tag_count; t++)
			live += failure->live_by_tag[t].bytes;
		char where[300];
		snprintf(where, sizeof(where), "%s.failures[%zu].snapshot.live_by_tag", path, i);
		if (!not_above(r, live, failure->live_bytes, where, "it holds", "live_bytes"))
			return false;
		snprintf(where, sizeof(where), "%s.failures[%zu].snapshot.top_stacks", path, i);
		if (!not_above(r, stacks_hold(failure->top_stacks, failure->top_stack_count),
			       failure->live_bytes, where, "they hold", "live_bytes"))
			return false;
	}
	return true;
}

/* The leaks listed are some of what was live at exit (the rest left out
 * past --top); more bytes or allocations than that cannot be true. */
static bool leaks(struct relations *r, const struct vt_owner *owner, const char *path)
{
	total bytes = 0, count = 0;
	for (size_t i = 0; i < owner->leak_count; i++) {
		bytes += owner->leaks[i].bytes;
		count += owner->leaks[i].count;
	}
	char where[300];
	snprintf(where, sizeof(where), "%s.leaks", path);
	if (count > owner->live_at_exit_allocations)
		return fail(r,
			    "%s: they hold %" PRId64 " allocations, more than live_at_exit_"
			    "allocations %" PRId64,
			    where, count > INT64_MAX ? INT64_MAX : (int64_t)count,
			    owner->live_at_exit_allocations);
	return not_above(r, bytes, owner->live_at_exit_bytes, where, "they hold",
			 "live_at_exit_bytes");
}

static bool owner(struct relations *r, const struct vt_owner *owner, const char *path)
{
	char where[300];
	snprintf(where, sizeof(where), "%s.live_at_exit_bytes", path);
	if (!not_above(r, owner->live_at_exit_bytes, owner->peak.bytes, where, "", "the peak's"))
		return false;
	snprintf(where, sizeof(where), "%s.peak_since_reset.bytes", path);
	if (owner->since_reset.present &&
	    !not_above(r, owner->since_reset.bytes, owner->peak.bytes, where, "", "the peak's"))
		return false;
	return kinds(r, owner, path) && tags(r, owner, path) && stacks(r, owner, path) &&
	       leaks(r, owner, path) && timeline(r, owner, path) && failures(r, owner, path);
}

/* Each stack's frames once: two lists for one id would give that stack
 * whichever a reader found first. */
static bool stacks_once(struct relations *r, const struct vt_report_model *report,
			const char *prefix)
{
	for (size_t i = 1; i < report->stack_count; i++)
		if (report->stacks[i].id == report->stacks[i - 1].id)
			return fail(r, "%s.stack_frames: stack %" PRId64 " is listed twice", prefix,
				    report->stacks[i].id);
	return true;
}

static bool report(struct relations *r, const struct vt_report_model *report, const char *prefix)
{
	char path[300];
	if (!stacks_once(r, report, prefix))
		return false;
	for (size_t i = 0; i < report->device_count; i++) {
		snprintf(path, sizeof(path), "%s.devices[%zu]", prefix, i);
		if (!owner(r, &report->devices[i], path))
			return false;
	}
	snprintf(path, sizeof(path), "%s.host", prefix);
	return owner(r, &report->host, path);
}

/* The ranks' runs, each once: host, process and start. */
static bool distinct_runs(struct relations *r, const struct vt_merged *merged)
{
	json_t *seen = json_object();
	bool ok = seen != NULL;
	for (size_t i = 0; ok && i < merged->rank_count; i++) {
		const struct vt_run_model *run = &merged->ranks[i].report.run;
		char *identity;
		const char *host = run->host ? run->host : "?";
		if (asprintf(&identity, "%zu:%s/%" PRId64 "/%s", strlen(host), host, run->pid,
			     run->start ? run->start : "?") < 0)
			return json_decref(seen), fail(r, "out of memory");
		json_t *before = json_object_get(seen, identity);
		if (before)
			ok = fail(r,
				  ".ranks[%zu]: the same run as .ranks[%" PRId64
				  "] (process %" PRId64 "), counted twice",
				  i, (int64_t)json_integer_value(before), run->pid);
		else
			ok = json_object_set_new_nocheck(seen, identity,
							 json_integer((json_int_t)i)) == 0 ||
			     fail(r, "out of memory");
		free(identity);
	}
	json_decref(seen);
	return ok;
}

/* Each rank's name (its rank, else its file) once: a diff or a check
 * keys the rows by it, and would add two processes up as one rank. */
static bool distinct_names(struct relations *r, const struct vt_merged *merged)
{
	json_t *seen = json_object();
	bool ok = seen != NULL || fail(r, "out of memory");
	for (size_t i = 0; ok && i < merged->rank_count; i++) {
		const char *name = vt_rank_name(&merged->ranks[i]);
		json_t *before = json_object_get(seen, name);
		if (before)
			ok = fail(r, ".ranks[%zu]: rank \"%.64s\" again, as .ranks[%" PRId64 "]", i,
				  name, (int64_t)json_integer_value(before));
		else
			ok = json_object_set_new_nocheck(seen, name, json_integer((json_int_t)i)) ==
				     0 ||
			     fail(r, "out of memory");
	}
	json_decref(seen);
	return ok;
}

/* The summary's peak, as the ranks give it. */
static bool merged_peak(struct relations *r, const struct vt_merged *merged)
{
	int64_t max = 0, min = INT64_MAX;
	for (size_t i = 0; i < merged->rank_count; i++) {
		int64_t peak = vt_report_peak(&merged->ranks[i].report);
		max = peak > max ? peak : max;
		min = peak < min ? peak : min;
	}
	if (merged->peak_max_bytes != max)
		return fail(r,
			    "peak.max_bytes: %" PRId64 ", but the ranks' highest peak is %" PRId64,
			    merged->peak_max_bytes, max);
	if (merged->peak_min_bytes != min)
		return fail(r,
			    "peak.min_bytes: %" PRId64 ", but the ranks' lowest peak is %" PRId64,
			    merged->peak_min_bytes, min);
	if (merged->peak_skew_bytes != max - min)
		return fail(r, "peak.skew_bytes: %" PRId64 ", but max less min is %" PRId64,
			    merged->peak_skew_bytes, max - min);
	return true;
}

/* The merged summary's tags, indexed by name (each listed once); false
 * when one is listed twice or memory runs out. */
static bool index_tags(struct relations *r, const struct vt_merged *merged, json_t *index)
{
	bool ok = true;
	for (size_t t = 0; ok && t < merged->tag_count; t++) {
		const char *name = merged->tags[t].tag;
		if (json_object_get(index, name))
			return fail(r, ".tags[%zu]: tag \"%.64s\" is listed twice", t, name);
		ok = json_object_set_new_nocheck(index, name, json_integer((json_int_t)t)) == 0;
	}
	return ok;
}

/* One rank's bytes at the peak for each of the summary's tags, added over
 * its devices into rank[]; a tag the summary lacks is left to the sums. */
static void add_rank(const struct vt_report_model *report, json_t *index, total *rank)
{
	for (size_t d = 0; d < report->device_count; d++)
		for (size_t k = 0; k < report->devices[d].tag_count; k++) {
			const struct vt_tag_row *tag = &report->devices[d].tags[k];
			json_t *at = json_object_get(index, tag->tag);
			if (at)
				rank[json_integer_value(at)] += tag->counters.at_peak_bytes;
		}
}

/* Each tag's bytes at the peaks, summed over the ranks and at most on one,
 * as the ranks give them; each tag listed once. */
static bool merged_tags(struct relations *r, const struct vt_merged *merged)
{
	size_t n = merged->tag_count ? merged->tag_count : 1;
	json_t *index = json_object();
	total *sum = calloc(n, sizeof(*sum)), *most = calloc(n, sizeof(*most)),
	      *rank = calloc(n, sizeof(*rank));
	bool ok = index && sum && most && rank ? index_tags(r, merged, index)
					       : fail(r, ": out of memory checking the tags");
	for (size_t i = 0; ok && i < merged->rank_count; i++) {
		memset(rank, 0, n * sizeof(*rank));
		add_rank(&merged->ranks[i].report, index, rank);
		for (size_t t = 0; t < merged->tag_count; t++) {
			sum[t] += rank[t];
			most[t] = rank[t] > most[t] ? rank[t] : most[t];
		}
	}
	for (size_t t = 0; ok && t < merged->tag_count; t++) {
		const struct vt_merged_tag *tag = &merged->tags[t];
		if (tag->at_peak_sum_bytes != sum[t] || tag->at_peak_max_bytes != most[t])
			ok = fail(r,
				  ".tags[%zu]: tag \"%.64s\" holds %" PRId64 " summed and %" PRId64
				  " at most on one rank, but the ranks give %" PRId64
				  " and %" PRId64,
				  t, tag->tag, tag->at_peak_sum_bytes, tag->at_peak_max_bytes,
				  sum[t] > INT64_MAX ? INT64_MAX : (int64_t)sum[t],
				  most[t] > INT64_MAX ? INT64_MAX : (int64_t)most[t]);
	}
	json_decref(index);
	free(sum);
	free(most);
	free(rank);
	return ok;
}

bool vt_report_relations(const struct vt_report_model *single, const struct vt_merged *merged,
			 char *error, size_t size)
{
	struct relations r = {error, size};
	if (!merged)
		return report(&r, single, "");
	for (size_t i = 0; i < merged->rank_count; i++) {
		char prefix[64];
		snprintf(prefix, sizeof(prefix), ".ranks[%zu].report", i);
		if (!report(&r, &merged->ranks[i].report, prefix))
			return false;
	}
	return distinct_runs(&r, merged) && distinct_names(&r, merged) && merged_peak(&r, merged) &&
	       merged_tags(&r, merged);
}
