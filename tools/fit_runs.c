#include "json_build.h"
#include "fit_runs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_file.h"

/* The digits at p, past them; *any says whether there was one. */
static const char *skip_digits(const char *p, bool *any)
{
	for (; *p >= '0' && *p <= '9'; p++)
		*any = true;
	return p;
}

bool vt_fit_parse_value(const char *text, double *value)
{
	/* [+-] digits [. digits] [e [+-] digits], checked before strtod, which
	 * would also take hex, inf, nan and leading spaces */
	const char *p = text + (*text == '+' || *text == '-');
	bool mantissa = false, exponent = false;
	p = skip_digits(p, &mantissa);
	if (*p == '.')
		p = skip_digits(p + 1, &mantissa);
	if (mantissa && (*p == 'e' || *p == 'E')) {
		p += 1 + (p[1] == '+' || p[1] == '-');
		p = skip_digits(p, &exponent);
		mantissa = exponent;
	}
	if (!mantissa || *p)
		return false;
	*value = strtod(text, NULL);
	return isfinite(*value);
}

static const struct vt_owner *pick_device(const struct vt_report_model *report, long device)
{
	const struct vt_owner *best = NULL;
	for (size_t i = 0; i < report->device_count; i++) {
		const struct vt_owner *entry = &report->devices[i];
		if (device >= 0 ? entry->ordinal == device
				: !best || entry->peak.bytes > best->peak.bytes)
			best = entry;
	}
	return best;
}

bool vt_fit_run_from_report(const struct vt_report_file *file, long device, struct vt_fit_run *run,
			    char *error, size_t size)
{
	memset(run, 0, sizeof(*run));
	if (file->merged) {
		snprintf(error, size, "%s: a merged report; give each rank's report instead",
			 file->path);
		return false;
	}
	const struct vt_report_model *report = &file->report;
	const struct vt_owner *entry = pick_device(report, device);
	if (!entry) {
		/* device is -1 for "the highest": said as "no device -1" */
		if (device >= 0)
			snprintf(error, size, "%s: no device %ld in this report", file->path,
				 device);
		else
			snprintf(error, size, "%s: no device in this report, so no peak to fit",
				 file->path);
		return false;
	}
	run->file = file->path;
	run->labels = json_object();
	for (size_t i = 0; i < report->run.label_count; i++)
		vt_json_put(run->labels, report->run.labels[i].key,
			    json_string(report->run.labels[i].value));
	const char *program = report->run.command_count ? report->run.command[0] : NULL;
	const char *slash = program ? strrchr(program, '/') : NULL;
	run->program = slash ? slash + 1 : program ? program : "?";
	run->peak = entry->peak.bytes;
	run->tags = json_object();
	for (size_t i = 0; i < entry->tag_count; i++)
		vt_json_put(run->tags, entry->tags[i].tag,
			    json_integer(entry->tags[i].counters.at_peak_bytes));
	return true;
}

void vt_fit_run_free(struct vt_fit_run *run)
{
	if (run->tags)
		json_decref(run->tags);
	if (run->labels)
		json_decref(run->labels);
	run->tags = run->labels = NULL;
}

/* A run's label, or NULL. */
static const char *label_of(const struct vt_fit_run *run, const char *label)
{
	return json_string_value(json_object_get(run->labels, label));
}

bool vt_fit_label_numeric(const struct vt_fit_run *runs, unsigned count, const char *label)
{
	for (unsigned r = 0; r < count; r++) {
		double value;
		const char *text = label_of(&runs[r], label);
		if (!text || !vt_fit_parse_value(text, &value))
			return false;
	}
	return true;
}

double vt_fit_label_value(const struct vt_fit_run *run, const char *label)
{
	double value = 0;
	const char *text = label_of(run, label);
	vt_fit_parse_value(text ? text : "", &value);
	return value;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The labels of every run, each once, sorted; NULL-terminated. */
static const char **all_labels(const struct vt_fit_run *runs, unsigned count)
{
	json_t *seen = json_object();
	for (unsigned r = 0; r < count; r++) {
		const char *key;
		json_t *value;
		json_object_foreach (runs[r].labels, key, value)
			vt_json_put(seen, key, json_true());
	}
	size_t n = json_object_size(seen), i = 0;
	const char **names = calloc(n + 1, sizeof(*names));
	const char *key;
	json_t *value;
	json_object_foreach (seen, key, value)
		names[i++] = strdup(key);
	json_decref(seen);
	qsort(names, n, sizeof(*names), compare_names);
	return names;
}

static void free_labels(const char **names)
{
	for (const char **name = names; name && *name; name++)
		free((char *)*name);
	free(names);
}

/* "dtype=bf16,quant=none": the run's non-numeric labels, in name order. */
static void group_name(const struct vt_fit_run *run, const char **labels, const bool *numeric,
		       char *out, size_t size)
{
	size_t used = 0;
	out[0] = '\0';
	for (unsigned i = 0; labels[i]; i++) {
		if (numeric[i])
			continue;
		int wrote = snprintf(out + used, size - used, "%s%s=%s", used ? "," : "", labels[i],
				     label_of(run, labels[i]) ? label_of(run, labels[i]) : "");
		if (wrote > 0 && (size_t)wrote < size - used)
			used += (size_t)wrote;
	}
}

/* A group's variables: its numeric labels that vary; the others fixed. */
static void find_variables(struct vt_fit_group *group, const struct vt_fit_run *runs,
			   const char **labels, const bool *numeric)
{
	group->fixed = json_object();
	for (unsigned i = 0; labels[i]; i++) {
		if (!numeric[i])
			continue;
		double low = INFINITY, high = -INFINITY;
		for (unsigned r = 0; r < group->run_count; r++) {
			double value = vt_fit_label_value(&runs[group->runs[r]], labels[i]);
			low = fmin(low, value);
			high = fmax(high, value);
		}
		if (low == high) {
			vt_json_put(group->fixed, labels[i], json_real(low));
		} else if (group->variable_count < VT_FIT_MAX_VARIABLES) {
			unsigned v = group->variable_count++;
			snprintf(group->variables[v], sizeof(group->variables[v]), "%s", labels[i]);
			group->low[v] = low;
			group->high[v] = high;
		} else {
			group->error = "more than four numeric labels vary in its runs";
		}
	}
	if (group->run_count < 2)
		group->error = "a single run cannot be fitted: give reports of at least two "
			       "settings";
	else if (!group->error && group->variable_count == 0)
		group->error = "its runs do not differ in any numeric label, so there is nothing "
			       "to fit";
}

static bool labels_complete(const struct vt_fit_run *runs, unsigned count, const char **labels,
			    char *error, size_t size)
{
	for (unsigned r = 0; r < count; r++)
		for (unsigned i = 0; labels[i]; i++)
			if (!label_of(&runs[r], labels[i])) {
				snprintf(error, size,
					 "%s has no label %s, which other runs have: every run "
					 "needs the same labels",
					 runs[r].file, labels[i]);
				return false;
			}
	return true;
}

unsigned vt_fit_group_runs(const struct vt_fit_run *runs, unsigned count,
			   struct vt_fit_group *groups, unsigned max, char *error, size_t size)
{
	const char **labels = all_labels(runs, count);
	unsigned label_count = 0;
	while (labels[label_count])
		label_count++;
	bool *numeric = calloc(label_count + 1, sizeof(*numeric));
	unsigned group_count = 0;
	if (!labels_complete(runs, count, labels, error, size))
		goto done;
	for (unsigned i = 0; i < label_count; i++)
		numeric[i] = vt_fit_label_numeric(runs, count, labels[i]);
	for (unsigned r = 0; r < count; r++) {
		char name[512];
		group_name(&runs[r], labels, numeric, name, sizeof(name));
		unsigned g = 0;
		while (g < group_count && strcmp(groups[g].name, name) != 0)
			g++;
		if (g == group_count) {
			if (group_count == max) {
				snprintf(error, size, "more than %u groups of runs", max);
				group_count = 0;
				goto done;
			}
			memset(&groups[g], 0, sizeof(groups[g]));
			snprintf(groups[g].name, sizeof(groups[g].name), "%s", name);
			group_count++;
		}
		groups[g].runs[groups[g].run_count++] = r;
	}
	for (unsigned g = 0; g < group_count; g++)
		find_variables(&groups[g], runs, labels, numeric);
done:
	free(numeric);
	free_labels(labels);
	return group_count;
}

void vt_fit_group_data(const struct vt_fit_group *group, const struct vt_fit_run *runs,
		       const char *tag, struct vt_fit_data *data)
{
	memset(data, 0, sizeof(*data));
	data->run_count = group->run_count;
	data->variable_count = group->variable_count;
	for (unsigned r = 0; r < group->run_count; r++) {
		const struct vt_fit_run *run = &runs[group->runs[r]];
		for (unsigned v = 0; v < group->variable_count; v++)
			data->x[r][v] = vt_fit_label_value(run, group->variables[v]);
		data->y[r] = (double)(tag ? json_integer_value(json_object_get(run->tags, tag))
					  : run->peak);
	}
}

void vt_fit_group_free(struct vt_fit_group *group)
{
	if (group->fixed)
		json_decref(group->fixed);
	group->fixed = NULL;
}
