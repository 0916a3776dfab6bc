/* vramtrace fit's document for people: text in the user's terms ("each +1
 * batch costs 512.00 MiB"), or one self-contained HTML page with the
 * measured points and fitted lines against each variable, the budget line
 * and the largest fit. The JSON format is the document itself. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "json_build.h"
#include "formats.h"
#include "report_file.h"

/* A size from a double, exact to 2^64-1 either way: llround past 2^63
 * wrapped (a budget of 2^63-1 bytes showed as -8.00 EiB). */
static const char *human(double bytes, char *buf, unsigned size)
{
	double magnitude = fmin(fabs(bytes), 18446744073709551615.0);
	if (magnitude < 9223372036854775807.0)
		return vt_human((int64_t)llround(bytes), buf, size);
	uint64_t whole = magnitude >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)magnitude;
	if (bytes >= 0 || size < 2)
		return vt_bytes_text(whole, buf, size);
	buf[0] = '-';
	vt_bytes_text(whole, buf + 1, size - 1);
	return buf;
}

/* A model's coefficient: a size, but where it is not whole below a KiB,
 * to three significant digits (0.0038 B per token was "0 B per token"),
 * and from 100 B to a tenth of a byte, never with an exponent ("%.3g"
 * wrote 1023.5 B as "1.02e+03 B"). */
static const char *coefficient(double bytes, char *buf, unsigned size)
{
	if (fabs(bytes) < 1024 && fabs(bytes - nearbyint(bytes)) > 1e-6 * fmax(1, fabs(bytes))) {
		snprintf(buf, size, fabs(bytes) < 100 ? "%.3g B" : "%.1f B", bytes);
		/* 1023.96 B is 1.00 KiB, as every size that rounds up to 1024 */
		if (fabs(bytes) < 1023.95)
			return buf;
	}
	return human(bytes, buf, size);
}

static double number(json_t *object, const char *key)
{
	return json_number_value(json_object_get(object, key));
}

/* "batch=32, context=4096" from a labels object. */
static void labels_text(json_t *labels, char *out, size_t size)
{
	size_t used = 0;
	out[0] = '\0';
	const char *key;
	json_t *value;
	json_object_foreach (labels, key, value) {
		char name[256], text[256];
		int wrote = snprintf(
			out + used, size - used, "%s%s=%s", used ? ", " : "",
			vt_safe(key, "", name, sizeof(name)),
			json_is_string(value)
				? vt_safe(json_string_value(value), "", text, sizeof(text))
				: vt_number_text(json_number_value(value), text, sizeof(text)));
		if (wrote < 0 || (size_t)wrote >= size - used)
			return;
		used += (size_t)wrote;
	}
}

static void model_line(FILE *out, const char *name, json_t *model)
{
	char shown[256];
	fprintf(out, "  %-16s =", vt_safe(name, "", shown, sizeof(shown)));
	size_t i;
	json_t *term;
	char size[32];
	json_array_foreach (json_object_get(model, "terms"), i, term) {
		const char *what = json_string_value(json_object_get(term, "term"));
		double c = number(term, "coefficient");
		fprintf(out, "%s %s %s%s", i ? " +" : "", coefficient(c, size, sizeof(size)),
			strcmp(what, "1") == 0 ? "fixed" : "per ",
			strcmp(what, "1") == 0 ? "" : vt_safe(what, "", shown, sizeof(shown)));
	}
	if (!json_array_size(json_object_get(model, "terms")))
		fputs(" 0 B", out);
	fprintf(out, "   (leave-one-out miss at most %s)\n",
		human(number(model, "loo_max_error_bytes"), size, sizeof(size)));
}

/* The coefficient of a variable's own term in a model, 0 without one. */
static double own_term(json_t *model, const char *variable)
{
	size_t i;
	json_t *term;
	json_array_foreach (json_object_get(model, "terms"), i, term)
		if (strcmp(json_string_value(json_object_get(term, "term")), variable) == 0)
			return number(term, "coefficient");
	return 0;
}

/* "each +1 batch costs 512.00 MiB (kv_cache 512.00 MiB)": terms in the
 * variable alone; products are shown in the model lines. */
static void costs(FILE *out, json_t *group)
{
	json_t *model = json_object_get(group, "model");
	size_t i;
	json_t *variable;
	char size[32];
	json_array_foreach (json_object_get(group, "variables"), i, variable) {
		const char *name = json_string_value(json_object_get(variable, "name"));
		double peak = own_term(json_object_get(model, "peak"), name);
		if (peak == 0)
			continue;
		char shown[256];
		fprintf(out, "  each +1 %s costs %s", vt_safe(name, "", shown, sizeof(shown)),
			coefficient(peak, size, sizeof(size)));
		const char *tag;
		json_t *tag_model;
		bool first = true;
		json_object_foreach (json_object_get(model, "tags"), tag, tag_model) {
			double bytes = own_term(tag_model, name);
			if (bytes == 0)
				continue;
			fprintf(out, "%s%s %s", first ? " (" : ", ",
				vt_safe(tag, "", shown, sizeof(shown)),
				coefficient(bytes, size, sizeof(size)));
			first = false;
		}
		fputs(first ? "\n" : ")\n", out);
	}
}

static void group_text(FILE *out, json_t *group)
{
	const char *name = json_string_value(json_object_get(group, "name"));
	json_t *runs = json_object_get(group, "runs");
	char shown[256], low[40], high[40];
	fprintf(out, "%s%s (%zu runs); variables:", name[0] ? "group " : "runs",
		vt_safe(name, "", shown, sizeof(shown)), json_array_size(runs));
	size_t i;
	json_t *item;
	json_array_foreach (json_object_get(group, "variables"), i, item)
		fprintf(out, " %s %s to %s",
			vt_safe(json_string_value(json_object_get(item, "name")), "", shown,
				sizeof(shown)),
			vt_number_text(number(item, "low"), low, sizeof(low)),
			vt_number_text(number(item, "high"), high, sizeof(high)));
	char text[600];
	labels_text(json_object_get(group, "fixed"), text, sizeof(text));
	fprintf(out, "%s%s\n\n", text[0] ? "; held at " : "", text);
	json_t *model = json_object_get(group, "model");
	model_line(out, "peak", json_object_get(model, "peak"));
	const char *tag;
	json_object_foreach (json_object_get(model, "tags"), tag, item)
		model_line(out, tag, item);
	costs(out, group);
	fprintf(out, "\n  residuals (measured - fitted):\n");
	char measured[32], fitted[32], residual[32];
	json_array_foreach (runs, i, item) {
		json_t *labels = json_deep_copy(json_object_get(item, "labels"));
		labels_text(labels, text, sizeof(text));
		json_decref(labels);
		fprintf(out, "    %-40s peak %12s  fitted %12s  %s\n", text,
			human(number(item, "peak_bytes"), measured, sizeof(measured)),
			human(number(item, "fitted_bytes"), fitted, sizeof(fitted)),
			human(number(item, "residual_bytes"), residual, sizeof(residual)));
	}
	fputc('\n', out);
}

static void prediction_text(FILE *out, json_t *prediction)
{
	char text[600], size[32], uncertainty[32];
	labels_text(json_object_get(prediction, "labels"), text, sizeof(text));
	fprintf(out, "prediction at %s: peak %s (%" PRId64 " bytes) +/- %s%s\n", text,
		human(number(prediction, "peak_bytes"), size, sizeof(size)),
		(int64_t)number(prediction, "peak_bytes"),
		human(number(prediction, "uncertainty_bytes"), uncertainty, sizeof(uncertainty)),
		json_is_true(json_object_get(prediction, "extrapolated"))
			? ", extrapolated beyond the measured range"
			: "");
	const char *tag;
	json_t *bytes;
	bool first = true;
	json_object_foreach (json_object_get(prediction, "tags"), tag, bytes) {
		char shown[256];
		fprintf(out, "%s%s %s", first ? "    " : ", ",
			vt_safe(tag, "", shown, sizeof(shown)),
			human(number(json_object_get(prediction, "tags"), tag), size,
			      sizeof(size)));
		first = false;
	}
	if (!first)
		fputc('\n', out);
}

static void largest_text(FILE *out, json_t *largest)
{
	char budget[32], headroom[32], peak[32], text[600], shown[256];
	const char *key = json_string_value(json_object_get(largest, "key"));
	fprintf(out, "largest %s that fits %s with %s kept free: ",
		vt_safe(key, "", shown, sizeof(shown)),
		human(number(largest, "budget_bytes"), budget, sizeof(budget)),
		human(number(largest, "headroom_bytes"), headroom, sizeof(headroom)));
	json_t *value = json_object_get(largest, "value");
	if (json_is_null(value) && number(largest, "bytes_per_unit") > 0) {
		fputs("none (not even 1 fits)\n", out);
		return;
	}
	if (json_is_null(value)) { /* the peak is flat: every value fits, or none */
		json_t *flat = json_object_get(largest, "flat_peak_bytes");
		json_int_t usable = json_integer_value(json_object_get(largest, "budget_bytes")) -
				    json_integer_value(json_object_get(largest, "headroom_bytes"));
		bool fits = json_is_integer(flat) && json_integer_value(flat) <= usable;
		fprintf(out, "%s (the peak does not grow with it", fits ? "any value" : "none");
		if (json_is_integer(flat))
			fprintf(out, "; predicted %s%s",
				human(number(largest, "flat_peak_bytes"), peak, sizeof(peak)),
				fits ? "" : ", over the budget");
		fputs(")\n", out);
		return;
	}
	json_t *others = json_deep_copy(json_object_get(largest, "labels"));
	json_object_del(others, key);
	labels_text(others, text, sizeof(text));
	json_decref(others);
	/* with its uncertainty, as a prediction is given: a solve far past
	 * the runs can be over the budget by as much */
	char uncertainty[32];
	fprintf(out, "%s=%" PRId64 ", predicted peak %s +/- %s%s%s%s%s\n", shown,
		(int64_t)json_integer_value(value),
		human(number(largest, "peak_bytes"), peak, sizeof(peak)),
		human(number(largest, "uncertainty_bytes"), uncertainty, sizeof(uncertainty)),
		text[0] ? " (with " : "", text, text[0] ? ")" : "",
		json_is_true(json_object_get(largest, "extrapolated"))
			? ", extrapolated beyond the measured range"
			: "");
}

static void fit_text(json_t *fit, FILE *out)
{
	size_t i;
	json_t *item;
	json_array_foreach (json_object_get(fit, "groups"), i, item)
		group_text(out, item);
	json_array_foreach (json_object_get(fit, "predictions"), i, item)
		prediction_text(out, item);
	json_t *largest = json_object_get(fit, "largest_fit");
	if (json_is_object(largest))
		largest_text(out, largest);
}

void vt_format_fit(json_t *fit, const char *format, FILE *out)
{
	if (strcmp(format, "json") == 0) {
		vt_json_dump(fit, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', out);
	} else if (strcmp(format, "html") == 0) {
		vt_fit_html(fit, out);
	} else {
		fit_text(fit, out);
	}
}
