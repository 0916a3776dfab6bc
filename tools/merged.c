#include "merged.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_file.h"

int64_t vt_report_peak(json_t *report)
{
	int64_t peak = 0;
	size_t i;
	json_t *device;
	json_array_foreach (json_object_get(report, "devices"), i, device) {
		int64_t bytes = vt_int(json_object_get(device, "peak"), "bytes");
		if (bytes > peak)
			peak = bytes;
	}
	return peak;
}

static json_t *rank_entry(json_t *report, const char *file)
{
	const char *rank = vt_str(json_object_get(report, "run"), "rank", NULL);
	return json_pack("{s:s, s:o, s:I, s:O}", "file", file, "rank",
			 rank ? json_string(rank) : json_null(), "peak_bytes",
			 (json_int_t)vt_report_peak(report), "report", report);
}

static void add_ranks(json_t *ranks, json_t *report, const char *file)
{
	if (strcmp(vt_str(report, "schema", ""), VT_SCHEMA_MERGED) != 0) {
		json_array_append_new(ranks, rank_entry(report, file));
		return;
	}
	size_t i;
	json_t *rank;
	json_array_foreach (json_object_get(report, "ranks"), i, rank)
		json_array_append(ranks, rank);
}

static json_t *peak_summary(json_t *ranks)
{
	int64_t max = -1, min = -1;
	const char *max_rank = NULL, *min_rank = NULL;
	size_t i;
	json_t *rank;
	json_array_foreach (ranks, i, rank) {
		int64_t peak = vt_int(rank, "peak_bytes");
		const char *name = vt_str(rank, "rank", vt_str(rank, "file", "?"));
		if (max < 0 || peak > max) {
			max = peak;
			max_rank = name;
		}
		if (min < 0 || peak < min) {
			min = peak;
			min_rank = name;
		}
	}
	return json_pack("{s:I, s:s, s:I, s:s, s:I, s:o}", "max_bytes", (json_int_t)max, "max_rank",
			 max_rank, "min_bytes", (json_int_t)min, "min_rank", min_rank, "skew_bytes",
			 (json_int_t)(max - min), "skew_ratio",
			 min > 0 ? json_real((double)max / (double)min) : json_null());
}

static int larger_sum_first(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	int64_t sx = vt_int(x, "at_peak_sum_bytes"), sy = vt_int(y, "at_peak_sum_bytes");
	if (sx != sy)
		return sx < sy ? 1 : -1;
	return strcmp(vt_str(x, "tag", ""), vt_str(y, "tag", ""));
}

static json_t *sorted_by_sum(json_t *tags)
{
	size_t count = json_array_size(tags);
	json_t **items = calloc(count ? count : 1, sizeof(*items));
	if (!items)
		return tags;
	for (size_t i = 0; i < count; i++)
		items[i] = json_incref(json_array_get(tags, i));
	qsort(items, count, sizeof(*items), larger_sum_first);
	json_array_clear(tags);
	for (size_t i = 0; i < count; i++)
		json_array_append_new(tags, items[i]);
	free(items);
	return tags;
}

/* Reports hold counts below 2^62 (checked on load); a sum over many ranks
 * stops at the largest integer rather than wrap. */
static int64_t add_saturating(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Per tag: bytes at each device's peak summed over all ranks, and the
 * largest one rank held (summed over its devices). */
static json_t *tag_summary(json_t *ranks)
{
	json_t *sums = json_object(), *maxima = json_object();
	size_t i, d, t;
	json_t *rank, *device, *tag;
	json_array_foreach (ranks, i, rank) {
		json_t *per_rank = json_object();
		json_array_foreach (json_object_get(json_object_get(rank, "report"), "devices"), d,
				    device) {
			json_array_foreach (json_object_get(device, "tags"), t, tag) {
				const char *name = vt_str(tag, "tag", "untagged");
				int64_t bytes = vt_int(tag, "at_peak_bytes");
				json_object_set_new(per_rank, name,
						    json_integer(add_saturating(
							    vt_int(per_rank, name), bytes)));
				json_object_set_new(
					sums, name,
					json_integer(add_saturating(vt_int(sums, name), bytes)));
			}
		}
		const char *name;
		json_t *bytes;
		json_object_foreach (per_rank, name, bytes) {
			if (json_integer_value(bytes) >= vt_int(maxima, name))
				json_object_set(maxima, name, bytes);
		}
		json_decref(per_rank);
	}
	json_t *tags = json_array();
	const char *name;
	json_t *bytes;
	json_object_foreach (sums, name, bytes) {
		json_array_append_new(
			tags, json_pack("{s:s, s:O, s:I}", "tag", name, "at_peak_sum_bytes", bytes,
					"at_peak_max_bytes", (json_int_t)vt_int(maxima, name)));
	}
	json_decref(sums);
	json_decref(maxima);
	return sorted_by_sum(tags);
}

json_t *vt_merge(json_t *const *reports, const char *const *files, size_t count)
{
	json_t *ranks = json_array();
	for (size_t i = 0; i < count; i++)
		add_ranks(ranks, reports[i], files[i]);
	return json_pack("{s:s, s:o, s:o, s:o}", "schema", VT_SCHEMA_MERGED, "peak",
			 peak_summary(ranks), "tags", tag_summary(ranks), "ranks", ranks);
}

/* A run is its host, process and start time: the same report given twice,
 * or a copy of it, would be counted twice. */
static bool identify(json_t *report, char *out, size_t size)
{
	json_t *run = json_object_get(report, "run");
	return (size_t)snprintf(out, size, "%s/%lld/%s", vt_str(run, "host", "?"),
				(long long)vt_int(run, "pid"), vt_str(run, "start", "?")) < size;
}

static bool note_run(json_t *seen, json_t *report, const char *file, char *error, size_t size)
{
	char identity[512];
	if (!identify(report, identity, sizeof(identity)))
		return true;
	const char *before = vt_str(seen, identity, NULL);
	if (before) {
		snprintf(error, size,
			 "%s and %s hold the same run (process %lld on %s): give each rank's "
			 "report once",
			 before, file, (long long)vt_int(json_object_get(report, "run"), "pid"),
			 vt_str(json_object_get(report, "run"), "host", "?"));
		return false;
	}
	json_object_set_new(seen, identity, json_string(file));
	return true;
}

bool vt_merge_distinct(json_t *const *reports, const char *const *files, size_t count, char *error,
		       size_t size)
{
	json_t *seen = json_object();
	bool ok = true;
	for (size_t i = 0; ok && i < count; i++) {
		if (strcmp(vt_str(reports[i], "schema", ""), VT_SCHEMA_MERGED) != 0) {
			ok = note_run(seen, reports[i], files[i], error, size);
			continue;
		}
		size_t r;
		json_t *rank;
		json_array_foreach (json_object_get(reports[i], "ranks"), r, rank) {
			if (ok)
				ok = note_run(seen, json_object_get(rank, "report"), files[i],
					      error, size);
		}
	}
	json_decref(seen);
	return ok;
}
