#define _GNU_SOURCE
#include "json_build.h"
#include "formats.h"
#include "merged.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One rank of the merged document: a single report given, or a rank of a
 * merged one, with the entry the document lists it under. */
struct rank {
	const char *name;
	const struct vt_report_model *report;
	json_t *entry;
};

static json_t *single_entry(const struct vt_report_file *file)
{
	const char *rank = file->report.run.rank;
	return json_pack("{s:o, s:o, s:I, s:O}", "file", vt_json_text(file->path), "rank",
			 rank ? json_string(rank) : json_null(), "peak_bytes",
			 (json_int_t)vt_report_peak(&file->report), "report", file->root);
}

/* The name rank r of an input goes by: its rank, else its file. */
static const char *input_rank_name(const struct vt_report_file *file, size_t r)
{
	if (file->merged)
		return vt_rank_name(&file->ranks.ranks[r]);
	return file->report.run.rank ? file->report.run.rank : file->path;
}

static size_t input_ranks(const struct vt_report_file *file)
{
	return file->merged ? file->ranks.rank_count : 1;
}

/* Every rank of the inputs, in order; NULL when out of memory. */
static struct rank *gather(const struct vt_report_file *files, size_t count, size_t *ranks)
{
	*ranks = 0;
	for (size_t i = 0; i < count; i++)
		*ranks += input_ranks(&files[i]);
	struct rank *out = calloc(*ranks ? *ranks : 1, sizeof(*out));
	size_t n = 0;
	for (size_t i = 0; out && i < count; i++) {
		const struct vt_report_file *file = &files[i];
		for (size_t r = 0; r < input_ranks(file); r++)
			out[n++] = (struct rank){
				input_rank_name(file, r),
				file->merged ? &file->ranks.ranks[r].report : &file->report,
				file->merged ? json_incref(file->ranks.ranks[r].json)
					     : single_entry(file)};
	}
	return out;
}

static json_t *peak_summary(const struct rank *ranks, size_t count)
{
	int64_t max = -1, min = -1;
	const char *max_rank = NULL, *min_rank = NULL;
	for (size_t i = 0; i < count; i++) {
		int64_t peak = vt_report_peak(ranks[i].report);
		if (max < 0 || peak > max) {
			max = peak;
			max_rank = ranks[i].name;
		}
		if (min < 0 || peak < min) {
			min = peak;
			min_rank = ranks[i].name;
		}
	}
	return json_pack("{s:I, s:o, s:I, s:o, s:I, s:o}", "max_bytes", (json_int_t)max, "max_rank",
			 vt_json_text(max_rank), "min_bytes", (json_int_t)min, "min_rank",
			 vt_json_text(min_rank), "skew_bytes", (json_int_t)(max - min),
			 "skew_ratio",
			 min > 0 ? json_real((double)max / (double)min) : json_null());
}

/* Reports hold counts below 2^62 (checked on load); a sum over many ranks
 * stops at the largest integer rather than wrap. */
static int64_t add_saturating(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

struct tag_total {
	const char *tag;
	int64_t sum, max, this_rank;
};

static int larger_sum_first(const void *a, const void *b)
{
	const struct tag_total *x = a, *y = b;
	if (x->sum != y->sum)
		return x->sum < y->sum ? 1 : -1;
	return strcmp(x->tag, y->tag);
}

/* The total of tag, found through index (tag -> position), or a new one. */
static struct tag_total *total_of(json_t *index, struct tag_total *totals, size_t *count,
				  const char *tag)
{
	json_t *position = json_object_get(index, tag);
	if (position)
		return &totals[json_integer_value(position)];
	vt_json_put(index, tag, json_integer((json_int_t)*count));
	totals[*count] = (struct tag_total){tag, 0, 0, 0};
	return &totals[(*count)++];
}

/* Per tag: bytes at each device's peak summed over all ranks, and the
 * largest one rank held (summed over its devices). */
static json_t *tag_summary(const struct rank *ranks, size_t count)
{
	size_t most = 0, distinct = 0;
	for (size_t i = 0; i < count; i++)
		for (size_t d = 0; d < ranks[i].report->device_count; d++)
			most += ranks[i].report->devices[d].tag_count;
	struct tag_total *totals = calloc(most ? most : 1, sizeof(*totals));
	json_t *index = json_object(), *tags = json_array();
	for (size_t i = 0; totals && i < count; i++) {
		for (size_t t = 0; t < distinct; t++)
			totals[t].this_rank = 0;
		const struct vt_report_model *report = ranks[i].report;
		for (size_t d = 0; d < report->device_count; d++) {
			const struct vt_owner *device = &report->devices[d];
			for (size_t t = 0; t < device->tag_count; t++) {
				struct tag_total *total =
					total_of(index, totals, &distinct, device->tags[t].tag);
				int64_t bytes = device->tags[t].counters.at_peak_bytes;
				total->this_rank = add_saturating(total->this_rank, bytes);
				total->sum = add_saturating(total->sum, bytes);
			}
		}
		for (size_t t = 0; t < distinct; t++)
			if (totals[t].this_rank > totals[t].max)
				totals[t].max = totals[t].this_rank;
	}
	if (totals)
		qsort(totals, distinct, sizeof(*totals), larger_sum_first);
	for (size_t t = 0; totals && t < distinct; t++)
		vt_json_push(tags, json_pack("{s:s, s:I, s:I}", "tag", totals[t].tag,
					     "at_peak_sum_bytes", (json_int_t)totals[t].sum,
					     "at_peak_max_bytes", (json_int_t)totals[t].max));
	json_decref(index);
	free(totals);
	return tags;
}

json_t *vt_merge(const struct vt_report_file *files, size_t count)
{
	size_t rank_count;
	struct rank *ranks = gather(files, count, &rank_count);
	if (!ranks)
		return NULL;
	json_t *entries = json_array();
	for (size_t i = 0; i < rank_count; i++)
		vt_json_push(entries, ranks[i].entry);
	json_t *merged =
		vt_json_checked(json_pack("{s:s, s:o, s:o, s:o}", "schema", VT_SCHEMA_MERGED,
					  "peak", peak_summary(ranks, rank_count), "tags",
					  tag_summary(ranks, rank_count), "ranks", entries));
	free(ranks);
	return merged;
}

/* A run is its host, process and start time: the same report given twice,
 * or a copy of it, would be counted twice. */
static bool note_run(json_t *seen, const struct vt_run_model *run, const char *file, char *error,
		     size_t size)
{
	/* allocated to fit: a long host name once skipped the check */
	char *identity;
	const char *host = run->host ? run->host : "?";
	if (asprintf(&identity, "%zu:%s/%lld/%s", strlen(host), host, (long long)run->pid,
		     run->start ? run->start : "?") < 0) {
		snprintf(error, size, "out of memory");
		return false;
	}
	json_t *before = json_object_get(seen, identity);
	if (before) {
		snprintf(error, size,
			 "%s and %s hold the same run (process %lld on %s): give each rank's "
			 "report once",
			 json_string_value(before), file, (long long)run->pid, host);
		free(identity);
		return false;
	}
	json_t *name = json_string_nocheck(file); /* never written out */
	bool ok = name && json_object_set_new_nocheck(seen, identity, name) == 0;
	free(identity);
	if (!ok)
		snprintf(error, size, "out of memory");
	return ok;
}

bool vt_merge_ranks_distinct(const struct vt_report_file *files, size_t count, char *error,
			     size_t size)
{
	json_t *seen = json_object();
	bool ok = seen != NULL;
	if (!ok)
		snprintf(error, size, "out of memory");
	for (size_t i = 0; ok && i < count; i++)
		for (size_t r = 0; ok && r < input_ranks(&files[i]); r++) {
			const char *name = input_rank_name(&files[i], r);
			json_t *before = json_object_get(seen, name);
			if (before) {
				snprintf(error, size,
					 "%s and %s both hold rank %s: its rows would add up "
					 "two processes as one (give each rank once)",
					 json_string_value(before), files[i].path, name);
				ok = false;
			} else if (json_object_set_new_nocheck(
					   seen, name, json_string_nocheck(files[i].path)) != 0) {
				snprintf(error, size, "out of memory");
				ok = false;
			}
		}
	json_decref(seen);
	return ok;
}

bool vt_merge_distinct(const struct vt_report_file *files, size_t count, char *error, size_t size)
{
	json_t *seen = json_object();
	bool ok = true;
	for (size_t i = 0; ok && i < count; i++) {
		const struct vt_report_file *file = &files[i];
		if (!file->merged)
			ok = note_run(seen, &file->report.run, file->path, error, size);
		for (size_t r = 0; ok && file->merged && r < file->ranks.rank_count; r++)
			ok = note_run(seen, &file->ranks.ranks[r].report.run, file->path, error,
				      size);
	}
	json_decref(seen);
	return ok;
}

bool vt_merge_readable(json_t *merged, uint64_t limit, char *error, size_t size)
{
	uint64_t bytes = vt_print_json_bytes(merged);
	if (bytes != 0 && bytes < limit)
		return true;
	if (bytes == 0)
		snprintf(error, size, "cannot measure the merged report: out of memory");
	else
		snprintf(error, size,
			 "the merged report would be %" PRIu64 " bytes, more than report, diff "
			 "and check read (%" PRIu64 " MiB); merge fewer reports at once, or "
			 "write them with a lower VRAMTRACE_TOP",
			 bytes, limit >> 20);
	return false;
}
