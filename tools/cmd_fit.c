/* vramtrace fit: several runs' peaks, fitted across their settings (the
 * numeric labels), to predict the peak at settings not yet run and to find
 * the largest value of one setting that fits a budget. The analysis builds
 * one JSON document; every format renders it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_build.h"
#include "cli.h"
#include "commands.h"
#include "fit_runs.h"
#include "formats.h"
#include "merged.h"
#include "options.h"
#include "report_file.h"

#define MAX_PREDICTIONS 16
#define MAX_GROUPS      16

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: vramtrace fit REPORT... [--predict K=V[,K=V...]]...\n"
		"                     [--budget SIZE [--headroom PCT] --solve KEY]\n"
		"                     [--device N] [--format text|json|html] [-o FILE]\n\n"
		"Fits the peaks of several runs across their settings, the labels given to\n"
		"`vramtrace run --label`: numeric labels (decimal numbers: 32, 0.5, 1e-4) that\n"
		"vary are the variables, other labels (dtype=bf16, 0x10) split the runs into\n"
		"groups fitted on their own. The peak and each tag's bytes at it are fitted\n"
		"as the fewest terms, among a constant, each variable and the product of two,\n"
		"that explain the runs, chosen by leave-one-out error.\n\n"
		"Options:\n"
		"  --predict K=V,...  predict the peak and its split by tag at these settings\n"
		"                     (repeatable); name the group's labels too when there\n"
		"                     are several groups\n"
		"  --budget SIZE      device memory available, with --solve\n"
		"  --headroom PCT     share of the budget to keep free (default 0)\n"
		"  --solve KEY        the largest whole value of variable KEY whose predicted\n"
		"                     peak plus headroom fits the budget; the other variables\n"
		"                     as in the first --predict\n"
		"  --device N         fit device N's peak (default: each run's highest)\n"
		"  --format F         text (default), json or html\n"
		"  -o, --output FILE  write there instead of standard output\n"
		"  -h, --help         show this help\n\n"
		"An answer outside the measured range (a prediction or --solve's) is\n"
		"extrapolated: a warning on stderr says how far, and the uncertainty widens by\n"
		"that much plus a quarter of the extrapolated change.\n\n"
		"Exit status: 0, or 2 for bad input or usage (fewer runs than a model needs,\n"
		"an unknown label, a group whose runs do not vary, the same run given twice,\n"
		"an answer past 2^63-1 bytes).\n");
}

struct fit_options {
	const char *predict[MAX_PREDICTIONS];
	unsigned predict_count;
	uint64_t budget;
	bool have_budget;
	uint32_t headroom;
	const char *solve;
	long device;
	const char *format;
	const char *output;
	const char **files; /* the reports */
	int file_count;
};

enum { OPT_PREDICT = 256, OPT_BUDGET, OPT_HEADROOM, OPT_SOLVE, OPT_DEVICE, OPT_FORMAT };

static const struct vt_option fit_options[] = {
	{"predict", 0, VT_OPTION_VALUE, OPT_PREDICT, "K=V[,K=V...], e.g. batch=32", NULL},
	{"budget", 0, VT_OPTION_VALUE, OPT_BUDGET, "SIZE, e.g. 80GiB", NULL},
	{"headroom", 0, VT_OPTION_VALUE, OPT_HEADROOM, "PCT, e.g. 10 or 12.5%", NULL},
	{"solve", 0, VT_OPTION_VALUE, OPT_SOLVE, "KEY, a variable of the runs", NULL},
	{"device", 0, VT_OPTION_VALUE, OPT_DEVICE, "N, a device ordinal", NULL},
	{"format", 0, VT_OPTION_VALUE, OPT_FORMAT, "FORMAT: text, json or html", NULL},
	{"output", 'o', VT_OPTION_VALUE, 'o', "OUT, a file (- for standard output)", NULL},
	{"help", 'h', VT_OPTION_FLAG, 'h', NULL, NULL},
};

/* The length of the key of the pair at text ("batch=32,..." gives 5). */
static size_t key_length(const char *text)
{
	return strcspn(text, "=,");
}

/* The first key that pairs (K=V,K=V...) gives twice, into key; false when
 * none is: one setting cannot hold two values of a label. */
static bool repeated_key(const char *pairs, char *key, size_t size)
{
	for (const char *at = pairs; at; at = strchr(at, ',') ? strchr(at, ',') + 1 : NULL) {
		size_t length = key_length(at);
		if (!length || at[length] != '=')
			continue; /* not a pair: parse_pairs says so */
		for (const char *later = strchr(at, ','); later; later = strchr(later + 1, ','))
			if (key_length(later + 1) == length &&
			    strncmp(later + 1, at, length) == 0) {
				snprintf(key, size, "%.*s", (int)length, at);
				return true;
			}
	}
	return false;
}

static bool fit_option(int id, const char *value, struct fit_options *o)
{
	char key[256];
	switch (id) {
	case OPT_PREDICT:
		if (o->predict_count == MAX_PREDICTIONS) {
			vt_diagnostic("vramtrace fit: at most %d --predict", MAX_PREDICTIONS);
			return false;
		}
		if (repeated_key(value, key, sizeof(key))) {
			vt_usage_error("fit", "--predict %s gives %s twice: one value each", value,
				       key);
			return false;
		}
		o->predict[o->predict_count++] = value;
		return true;
	case OPT_BUDGET:
		o->have_budget = true;
		return vt_parse_size_option("fit", "--budget", value, INT64_MAX, &o->budget);
	case OPT_HEADROOM: {
		unsigned __int128 headroom;
		bool ok = vt_parse_percent_option("fit", "--headroom", value, true, &headroom);
		o->headroom = ok ? (uint32_t)headroom : 0;
		return ok;
	}
	case OPT_SOLVE: o->solve = value; return true;
	case OPT_DEVICE:
		return vt_parse_count_option("fit", "--device", value, 0, 1023, &o->device);
	case OPT_FORMAT: o->format = value; return true;
	default: o->output = value; return true;
	}
}

static int check_options(const struct fit_options *o)
{
	if (strcmp(o->format, "text") != 0 && strcmp(o->format, "json") != 0 &&
	    strcmp(o->format, "html") != 0) {
		vt_usage_error("fit", "unknown format '%s' (text, json or html)", o->format);
		return VT_EXIT_BAD_INPUT;
	}
	if (!o->file_count) {
		vt_usage_error("fit", "give the reports of the runs to fit");
		return VT_EXIT_BAD_INPUT;
	}
	if (!o->solve != !o->have_budget) {
		vt_usage_error("fit", "--solve and --budget go together");
		return VT_EXIT_BAD_INPUT;
	}
	return -1;
}

static int parse_options(int argc, char **argv, struct fit_options *o)
{
	*o = (struct fit_options){.device = -1, .format = "text"};
	o->files = calloc((size_t)argc + 1, sizeof(*o->files));
	if (!o->files)
		return VT_EXIT_BAD_INPUT;
	struct vt_arguments arguments;
	vt_arguments_init(&arguments, "fit", usage, argc, argv, fit_options,
			  sizeof(fit_options) / sizeof(fit_options[0]));
	const char *value;
	for (int id; (id = vt_arguments_next(&arguments, &value)) != VT_ARGUMENT_END;) {
		if (id <= VT_ARGUMENT_ERROR)
			return vt_arguments_exit(id);
		if (id == VT_ARGUMENT_OPERAND)
			o->files[o->file_count++] = value;
		else if (!fit_option(id, value, o))
			return VT_EXIT_BAD_INPUT;
	}
	return check_options(o);
}

/* ---- the analysis, into one JSON document ---- */

struct fit {
	struct vt_fit_run runs[VT_FIT_MAX_RUNS];
	unsigned run_count;
	struct vt_fit_group groups[MAX_GROUPS];
	unsigned group_count;
	struct vt_report_file reports[VT_FIT_MAX_RUNS];
};

static void term_name(const struct vt_fit_group *group, struct vt_fit_term term, char *out,
		      size_t size)
{
	if (term.a < 0)
		snprintf(out, size, "1");
	else if (term.b < 0)
		snprintf(out, size, "%s", group->variables[term.a]);
	else
		snprintf(out, size, "%s*%s", group->variables[term.a], group->variables[term.b]);
}

static json_t *model_json(const struct vt_fit_group *group, const struct vt_fit_model *model)
{
	json_t *terms = json_array();
	for (unsigned t = 0; t < model->term_count; t++) {
		char name[160];
		term_name(group, model->terms[t], name, sizeof(name));
		vt_json_push(terms, json_pack("{s:s, s:f}", "term", name, "coefficient",
					      model->coefficients[t]));
	}
	return json_pack("{s:o, s:I, s:I}", "terms", terms, "loo_max_error_bytes",
			 (json_int_t)llround(model->loo_max_error), "fit_max_error_bytes",
			 (json_int_t)llround(model->fit_max_error));
}

/* Every tag any run of the group has. */
static json_t *group_tags(const struct vt_fit_group *group, const struct vt_fit_run *runs)
{
	json_t *tags = json_object();
	for (unsigned r = 0; r < group->run_count; r++) {
		const char *key;
		json_t *value;
		json_object_foreach (runs[group->runs[r]].tags, key, value)
			vt_json_put(tags, key, json_true());
	}
	return tags;
}

struct group_models {
	struct vt_fit_model peak;
	json_t *tags; /* tag -> model json */
	struct vt_fit_model tag_models[256];
	char tag_names[256][64];
	unsigned tag_count;
};

static bool fit_group(const struct vt_fit_group *group, const struct vt_fit_run *runs,
		      struct group_models *models)
{
	struct vt_fit_data data;
	vt_fit_group_data(group, runs, NULL, &data);
	models->peak = vt_fit_select(&data);
	models->tag_count = 0;
	json_t *tags = group_tags(group, runs);
	const char *key;
	json_t *value;
	json_object_foreach (tags, key, value) {
		if (models->tag_count == 256)
			break;
		unsigned t = models->tag_count++;
		snprintf(models->tag_names[t], sizeof(models->tag_names[t]), "%s", key);
		vt_fit_group_data(group, runs, key, &data);
		models->tag_models[t] = vt_fit_select(&data);
	}
	json_decref(tags);
	return models->peak.valid;
}

/* A setting's labels: the group's own ("dtype": "bf16"), the numbers held
 * fixed, and the variables at x. */
static json_t *labels_json(const struct vt_fit_group *group, const double *x)
{
	json_t *labels = json_object();
	char name[512];
	snprintf(name, sizeof(name), "%s", group->name);
	char *save = NULL;
	for (char *pair = strtok_r(name, ",", &save); pair; pair = strtok_r(NULL, ",", &save)) {
		char *equals = strchr(pair, '=');
		if (equals) {
			*equals = '\0';
			vt_json_put(labels, pair, vt_json_text(equals + 1));
		}
	}
	json_object_update(labels, group->fixed);
	for (unsigned v = 0; v < group->variable_count; v++)
		vt_json_put(labels, group->variables[v], json_real(x[v]));
	return labels;
}

static json_t *group_json(const struct vt_fit_group *group, const struct vt_fit_run *runs,
			  const struct group_models *models)
{
	json_t *variables = json_array();
	for (unsigned v = 0; v < group->variable_count; v++)
		vt_json_push(variables, json_pack("{s:s, s:f, s:f}", "name", group->variables[v],
						  "low", group->low[v], "high", group->high[v]));
	json_t *run_list = json_array();
	for (unsigned r = 0; r < group->run_count; r++) {
		const struct vt_fit_run *run = &runs[group->runs[r]];
		double x[VT_FIT_MAX_VARIABLES];
		for (unsigned v = 0; v < group->variable_count; v++)
			x[v] = vt_fit_label_value(run, group->variables[v]);
		json_int_t fitted = (json_int_t)llround(vt_fit_predict(&models->peak, x));
		vt_json_push(run_list,
			     json_pack("{s:o, s:O, s:I, s:I, s:I, s:O}", "file",
				       vt_json_text(run->file), "labels", run->labels, "peak_bytes",
				       (json_int_t)run->peak, "fitted_bytes", fitted,
				       "residual_bytes", (json_int_t)run->peak - fitted, "tags",
				       run->tags));
	}
	json_t *tags = json_object();
	for (unsigned t = 0; t < models->tag_count; t++)
		if (models->tag_models[t].valid)
			vt_json_put(tags, models->tag_names[t],
				    model_json(group, &models->tag_models[t]));
	return json_pack("{s:s, s:o, s:O, s:o, s:{s:o, s:o}}", "name", group->name, "variables",
			 variables, "fixed", group->fixed, "runs", run_list, "model", "peak",
			 model_json(group, &models->peak), "tags", tags);
}

/* ---- settings to predict at ---- */

struct setting {
	unsigned group;
	double x[VT_FIT_MAX_VARIABLES];
	json_t *labels; /* as the user gave them */
};

static bool group_has_pair(const struct vt_fit_group *group, const char *pair)
{
	size_t length = strlen(pair);
	for (const char *at = group->name; at && *at;) {
		if (strncmp(at, pair, length) == 0 && (at[length] == ',' || !at[length]))
			return true;
		at = strchr(at, ',');
		at = at ? at + 1 : NULL;
	}
	return false;
}

static int variable_index(const struct vt_fit_group *group, const char *name)
{
	for (unsigned v = 0; v < group->variable_count; v++)
		if (strcmp(group->variables[v], name) == 0)
			return (int)v;
	return -1;
}

static bool known_label(const struct fit *fit, const char *name)
{
	for (unsigned r = 0; r < fit->run_count; r++)
		if (json_object_get(fit->runs[r].labels, name))
			return true;
	return false;
}

/* The group the non-numeric labels of text name; the sole group when it
 * names none and there is one. */
static bool choose_group(const struct fit *fit, json_t *labels, unsigned *group, char *error,
			 size_t size)
{
	unsigned matches = 0;
	for (unsigned g = 0; g < fit->group_count; g++) {
		bool all = true;
		const char *key;
		json_t *value;
		json_object_foreach (labels, key, value) {
			char pair[600];
			snprintf(pair, sizeof(pair), "%s=%s", key, json_string_value(value));
			if (!vt_fit_label_numeric(fit->runs, fit->run_count, key))
				all = all && group_has_pair(&fit->groups[g], pair);
		}
		if (all) {
			*group = g;
			matches++;
		}
	}
	if (matches == 1)
		return true;
	size_t used = (size_t)snprintf(error, size, "%s: name one of the groups:",
				       matches ? "several groups of runs match"
					       : "no group of runs has these labels");
	for (unsigned g = 0; g < fit->group_count && used < size; g++)
		used += (size_t)snprintf(error + used, size - used, " %s", fit->groups[g].name);
	return false;
}

static json_t *parse_pairs(const struct fit *fit, const char *text, char *error, size_t size)
{
	json_t *labels = json_object();
	char copy[1024];
	snprintf(copy, sizeof(copy), "%s", text);
	char *save = NULL;
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *equals = strchr(item, '=');
		if (!equals || equals == item || !equals[1]) {
			snprintf(error, size, "--predict wants KEY=VALUE pairs, not '%s'", item);
			json_decref(labels);
			return NULL;
		}
		*equals = '\0';
		if (!known_label(fit, item)) {
			snprintf(error, size, "--predict names %s, a label no run has", item);
			json_decref(labels);
			return NULL;
		}
		vt_json_put(labels, item, vt_json_text(equals + 1));
	}
	return labels;
}

/* The values of a group's variables in labels; free: a variable that may
 * be missing (the one --solve finds). */
static bool setting_values(const struct fit *fit, struct setting *setting, int free_variable,
			   char *error, size_t size)
{
	const struct vt_fit_group *group = &fit->groups[setting->group];
	bool given[VT_FIT_MAX_VARIABLES] = {false};
	const char *key;
	json_t *value;
	json_object_foreach (setting->labels, key, value) {
		if (!vt_fit_label_numeric(fit->runs, fit->run_count, key))
			continue;
		double number;
		if (!vt_fit_parse_value(json_string_value(value), &number)) {
			snprintf(error, size,
				 "--predict %s=%s: not a decimal number (such as 32, 0.5 or 1e3)",
				 key, json_string_value(value));
			return false;
		}
		int v = variable_index(group, key);
		json_t *fixed = json_object_get(group->fixed, key);
		if (v < 0 && fixed && json_real_value(fixed) != number) {
			char held[40];
			snprintf(error, size,
				 "%s was %s in every run of %s: the fit cannot say how memory "
				 "changes with it",
				 key, vt_number_text(json_real_value(fixed), held, sizeof(held)),
				 group->name[0] ? group->name : "them");
			return false;
		}
		if (v >= 0) {
			setting->x[v] = number;
			given[v] = true;
		}
	}
	for (unsigned v = 0; v < group->variable_count; v++)
		if (!given[v] && (int)v != free_variable) {
			snprintf(error, size, "give %s=VALUE too: it varies across the runs",
				 group->variables[v]);
			return false;
		}
	return true;
}

/* text: "batch=32,dtype=fp32"; key: a variable that may be left out. */
static bool parse_setting(const struct fit *fit, const char *text, const char *key,
			  struct setting *setting, char *error, size_t size)
{
	memset(setting, 0, sizeof(*setting));
	setting->labels = parse_pairs(fit, text, error, size);
	if (!setting->labels || !choose_group(fit, setting->labels, &setting->group, error, size))
		return false;
	int free_variable = key ? variable_index(&fit->groups[setting->group], key) : -1;
	return setting_values(fit, setting, free_variable, error, size);
}

/* ---- predictions and the largest fit ---- */

/* How far beyond the measured range, as a share of it (0 inside). */
static double beyond_range(const struct vt_fit_group *group, const double *x, unsigned *worst)
{
	double most = 0;
	for (unsigned v = 0; v < group->variable_count; v++) {
		double span = group->high[v] - group->low[v];
		double outside = x[v] > group->high[v]  ? x[v] - group->high[v]
				 : x[v] < group->low[v] ? group->low[v] - x[v]
							: 0;
		if (span > 0 && outside / span > most) {
			most = outside / span;
			*worst = v;
		}
	}
	return most;
}

/* A predicted byte count, which JSON holds exactly below 2^63 (negative
 * predictions are none); false beyond. */
static bool predicted_bytes(double value, json_int_t *bytes)
{
	if (!(value < 9223372036854775808.0))
		return false;
	*bytes = value > 0 ? (json_int_t)llround(value) : 0;
	return true;
}

static void warn_extrapolated(const struct vt_fit_group *group, unsigned v, double x, double beyond)
{
	bool above = x > group->high[v];
	char value[40], distance[40], low[40], high[40];
	vt_diagnostic("vramtrace fit: warning: %s=%s is %s %s the measured %s to %s (%.0f%% of "
		      "that range): the answer is extrapolated",
		      group->variables[v], vt_number_text(x, value, sizeof(value)),
		      vt_number_text(above ? x - group->high[v] : group->low[v] - x, distance,
				     sizeof(distance)),
		      above ? "above" : "below", vt_number_text(group->low[v], low, sizeof(low)),
		      vt_number_text(group->high[v], high, sizeof(high)), beyond * 100);
}

/* The largest leave-one-out miss, widened by how far the setting lies
 * beyond what was measured, plus a quarter of the extrapolated part (the
 * change from the nearest measured setting): a fit that is exact inside its
 * range says nothing of how exact it stays outside. */
static double uncertainty_at(const struct vt_fit_group *group, const struct vt_fit_model *model,
			     const double *x, double beyond)
{
	double nearest[VT_FIT_MAX_VARIABLES];
	for (unsigned v = 0; v < group->variable_count; v++)
		nearest[v] = fmin(fmax(x[v], group->low[v]), group->high[v]);
	double extrapolated = fabs(vt_fit_predict(model, x) - vt_fit_predict(model, nearest));
	return model->loo_max_error * (1 + beyond) + (beyond > 0 ? extrapolated / 4 : 0);
}

/* A peak or tag the models put below zero at this setting (outside what
 * was measured, a line crosses zero): said, never shown as 0 B beside
 * tags that hold bytes. NULL when none is. */
static const char *below_zero(const struct group_models *models, const double *x, double *value)
{
	*value = vt_fit_predict(&models->peak, x);
	if (*value <= -0.5)
		return "the peak";
	for (unsigned t = 0; t < models->tag_count; t++)
		if (models->tag_models[t].valid &&
		    (*value = vt_fit_predict(&models->tag_models[t], x)) <= -0.5)
			return models->tag_names[t];
	return NULL;
}

static json_t *prediction_json(const struct vt_fit_group *group, const struct group_models *models,
			       const struct setting *setting, char *error, size_t size)
{
	unsigned worst = 0;
	double beyond = beyond_range(group, setting->x, &worst), negative;
	const char *below = below_zero(models, setting->x, &negative);
	if (below) {
		char bytes[40], value[40], low[40], high[40];
		if (negative < -9.2e18)
			snprintf(bytes, sizeof(bytes), "below -8 EiB");
		else
			vt_human((int64_t)llround(negative), bytes, sizeof(bytes));
		snprintf(error, size,
			 "--predict %s=%s: the prediction for %s is below zero (%s), where the "
			 "fitted model means nothing; the runs measured %s from %s to %s",
			 group->variables[worst],
			 vt_number_text(setting->x[worst], value, sizeof(value)), below, bytes,
			 group->variables[worst],
			 vt_number_text(group->low[worst], low, sizeof(low)),
			 vt_number_text(group->high[worst], high, sizeof(high)));
		return NULL;
	}
	json_t *tags = json_object();
	json_int_t peak = 0, uncertainty = 0, bytes = 0;
	bool ok = predicted_bytes(vt_fit_predict(&models->peak, setting->x), &peak) &&
		  predicted_bytes(uncertainty_at(group, &models->peak, setting->x, beyond),
				  &uncertainty);
	for (unsigned t = 0; ok && t < models->tag_count; t++)
		if (models->tag_models[t].valid) {
			ok = predicted_bytes(vt_fit_predict(&models->tag_models[t], setting->x),
					     &bytes);
			vt_json_put(tags, models->tag_names[t], json_integer(bytes));
		}
	if (!ok) {
		snprintf(error, size,
			 "--predict %s: the predicted peak is beyond 2^63-1 bytes (8 EiB), far "
			 "outside what the runs measured",
			 group->variables[worst]);
		json_decref(tags);
		return NULL;
	}
	if (beyond > 0)
		warn_extrapolated(group, worst, setting->x[worst], beyond);
	return json_pack("{s:o, s:s, s:I, s:o, s:b, s:I}", "labels", labels_json(group, setting->x),
			 "group", group->name, "peak_bytes", peak, "tags", tags, "extrapolated",
			 beyond > 0, "uncertainty_bytes", uncertainty);
}

/* The largest whole value of key whose peak plus headroom fits. */
static json_t *solve(const struct vt_fit_group *group, const struct group_models *models,
		     struct setting *setting, const struct fit_options *o, char *error, size_t size)
{
	int v = variable_index(group, o->solve);
	if (v < 0) {
		snprintf(error, size, "--solve %s: not a variable of %s (variables:", o->solve,
			 group->name[0] ? group->name : "the runs");
		for (unsigned w = 0; w < group->variable_count; w++)
			snprintf(error + strlen(error), size - strlen(error), " %s",
				 group->variables[w]);
		snprintf(error + strlen(error), size - strlen(error), ")");
		return NULL;
	}
	uint64_t headroom = (uint64_t)(((unsigned __int128)o->budget * o->headroom + 9999) / 10000);
	double limit = (double)(o->budget - headroom), base, slope;
	vt_fit_along(&models->peak, setting->x, (unsigned)v, &base, &slope);
	json_t *value = json_null(), *peak = json_null(), *flat = json_null();
	json_int_t uncertainty = 0;
	double beyond = 0;
	double best = slope > 0 ? floor((limit - base) / slope) : 0;
	/* Whole values count exactly in a double only below 2^53. */
	if (best >= 9007199254740992.0) {
		snprintf(error, size,
			 "--solve %s: the answer, about %.3g, is beyond 2^53, far outside what "
			 "the runs measured",
			 o->solve, best);
		return NULL;
	}
	if (slope <= 0) {
		/* No largest value: the flat peak (at the largest measured
		 * value) says whether every value fits or none does (text and
		 * html said "none" when every value fit). */
		json_int_t bytes = 0;
		setting->x[v] = group->high[v];
		if (predicted_bytes(vt_fit_predict(&models->peak, setting->x), &bytes))
			flat = json_integer(bytes);
	} else {
		json_int_t bytes = 0;
		setting->x[v] = best;
		/* rounding at the edge, and a peak JSON cannot hold exactly */
		while (best >= 1 &&
		       (vt_fit_predict(&models->peak, setting->x) > limit ||
			!predicted_bytes(vt_fit_predict(&models->peak, setting->x), &bytes)))
			setting->x[v] = --best;
		if (best >= 1) {
			value = json_integer((json_int_t)best);
			peak = json_integer(bytes);
			unsigned worst = 0;
			beyond = beyond_range(group, setting->x, &worst);
			if (beyond > 0)
				warn_extrapolated(group, worst, setting->x[worst], beyond);
			if (!predicted_bytes(
				    uncertainty_at(group, &models->peak, setting->x, beyond),
				    &uncertainty))
				uncertainty = INT64_MAX;
		}
	}
	return json_pack("{s:s, s:o, s:o, s:I, s:I, s:f, s:o, s:o, s:s, s:b, s:I}", "key", o->solve,
			 "value", value, "peak_bytes", peak, "budget_bytes", (json_int_t)o->budget,
			 "headroom_bytes", (json_int_t)headroom, "bytes_per_unit", slope,
			 "flat_peak_bytes", flat, "labels", labels_json(group, setting->x), "group",
			 group->name, "extrapolated", beyond > 0, "uncertainty_bytes", uncertainty);
}

/* ---- the command ---- */

static bool load_runs(struct fit *fit, const struct fit_options *o)
{
	char error[1024];
	long device = o->device;
	for (int i = 0; i < o->file_count; i++) {
		if (fit->run_count == VT_FIT_MAX_RUNS) {
			vt_diagnostic("vramtrace fit: at most %d reports", VT_FIT_MAX_RUNS);
			return false;
		}
		struct vt_report_file *report = &fit->reports[fit->run_count];
		if (vt_report_load(o->files[i], report, error, sizeof(error)) &&
		    !vt_need_device("fit", report, device)) {
			vt_report_close(report);
			return false;
		}
		if (!report->root ||
		    !vt_fit_run_from_report(report, device, &fit->runs[fit->run_count], error,
					    sizeof(error))) {
			vt_diagnostic("vramtrace fit: %s", error);
			return false;
		}
		fit->run_count++;
	}
	if (!vt_merge_distinct(fit->reports, fit->run_count, error, sizeof(error))) {
		vt_diagnostic("vramtrace fit: %s", error);
		return false;
	}
	for (unsigned r = 1; r < fit->run_count; r++)
		if (strcmp(fit->runs[r].program, fit->runs[0].program) != 0) {
			vt_diagnostic(
				"vramtrace fit: warning: %s ran %s, %s ran %s: runs of different "
				"programs are fitted together",
				fit->runs[0].file, fit->runs[0].program, fit->runs[r].file,
				fit->runs[r].program);
			break;
		}
	return true;
}

/* Fits every group; one that cannot be fitted is an error when it is asked
 * about, else left out with a warning. */
static bool fit_groups(struct fit *fit, struct group_models *models, const bool *wanted,
		       json_t *groups)
{
	unsigned fitted = 0;
	for (unsigned g = 0; g < fit->group_count; g++) {
		const struct vt_fit_group *group = &fit->groups[g];
		const char *why = group->error;
		if (!why && !fit_group(group, fit->runs, &models[g]))
			why = "fewer runs than any model of its variables needs";
		const char *name = group->name[0] ? group->name : "the runs";
		if (why && wanted[g]) {
			vt_diagnostic("vramtrace fit: %s: %s", name, why);
			return false;
		}
		if (why) {
			vt_diagnostic("vramtrace fit: warning: %s left out: %s", name, why);
			continue;
		}
		vt_json_push(groups, group_json(group, fit->runs, &models[g]));
		fitted++;
	}
	if (!fitted)
		vt_diagnostic("vramtrace fit: no group of runs could be fitted");
	return fitted > 0;
}

static int analyse(struct fit *fit, const struct fit_options *o, json_t *document)
{
	char error[1024];
	fit->group_count = vt_fit_group_runs(fit->runs, fit->run_count, fit->groups, MAX_GROUPS,
					     error, sizeof(error));
	if (!fit->group_count) {
		vt_diagnostic("vramtrace fit: %s", error);
		return VT_EXIT_BAD_INPUT;
	}
	struct setting settings[MAX_PREDICTIONS];
	bool wanted[MAX_GROUPS] = {false};
	unsigned count = o->predict_count ? o->predict_count : o->solve ? 1 : 0;
	for (unsigned p = 0; p < count; p++) {
		const char *text = p < o->predict_count ? o->predict[p] : "";
		if (!parse_setting(fit, text, p == 0 ? o->solve : NULL, &settings[p], error,
				   sizeof(error))) {
			vt_diagnostic("vramtrace fit: %s", error);
			return VT_EXIT_BAD_INPUT;
		}
		wanted[settings[p].group] = true;
	}
	if (!count)
		for (unsigned g = 0; g < fit->group_count; g++)
			wanted[g] = fit->group_count == 1;
	static struct group_models models[MAX_GROUPS];
	json_t *groups = json_object_get(document, "groups");
	if (!fit_groups(fit, models, wanted, groups))
		return VT_EXIT_BAD_INPUT;
	json_t *predictions = json_object_get(document, "predictions");
	for (unsigned p = 0; p < o->predict_count; p++) {
		unsigned g = settings[p].group;
		json_t *prediction = prediction_json(&fit->groups[g], &models[g], &settings[p],
						     error, sizeof(error));
		if (!prediction) {
			vt_diagnostic("vramtrace fit: %s", error);
			return VT_EXIT_BAD_INPUT;
		}
		vt_json_push(predictions, prediction);
	}
	if (o->solve) {
		unsigned g = settings[0].group;
		json_t *largest =
			solve(&fit->groups[g], &models[g], &settings[0], o, error, sizeof(error));
		if (!largest) {
			vt_diagnostic("vramtrace fit: %s", error);
			return VT_EXIT_BAD_INPUT;
		}
		vt_json_put(document, "largest_fit", largest);
	}
	for (unsigned p = 0; p < count; p++)
		json_decref(settings[p].labels);
	return VT_EXIT_OK;
}

int vt_command_fit(int argc, char **argv)
{
	struct fit_options options;
	int done = parse_options(argc, argv, &options);
	if (done < 0 &&
	    !vt_cli_output_apart("fit", options.output, options.files, (size_t)options.file_count))
		done = VT_EXIT_BAD_INPUT;
	if (done >= 0) {
		free(options.files);
		return done;
	}
	static struct fit fit;
	memset(&fit, 0, sizeof(fit));
	json_t *document =
		json_pack("{s:s, s:o, s:[], s:[], s:n}", "schema", "vramtrace/fit-1", "device",
			  options.device >= 0 ? json_integer(options.device) : json_null(),
			  "groups", "predictions", "largest_fit");
	int status =
		load_runs(&fit, &options) ? analyse(&fit, &options, document) : VT_EXIT_BAD_INPUT;
	struct vt_cli_output out;
	if (status == VT_EXIT_OK && vt_cli_output_open(&out, options.output, "fit")) {
		vt_format_fit(document, options.format, out.stream);
		if (!vt_cli_output_commit(&out, "fit"))
			status = VT_EXIT_BAD_INPUT;
	} else if (status == VT_EXIT_OK) {
		status = VT_EXIT_BAD_INPUT;
	}
	json_decref(document);
	for (unsigned g = 0; g < fit.group_count; g++)
		vt_fit_group_free(&fit.groups[g]);
	for (unsigned r = 0; r < fit.run_count; r++) {
		vt_fit_run_free(&fit.runs[r]);
		vt_report_close(&fit.reports[r]);
	}
	free(options.files);
	return status;
}
