/* vramtrace fit as one self-contained page: for each group, each model
 * (the peak, then each tag) against each variable, the measured points and
 * the fitted line for each combination of the other variables, with the
 * budget and the largest fit on the peak's chart. Plain SVG, no script. */
#include <math.h>
#include <string.h>

#include "formats.h"

#define W      560.0
#define H      300.0
#define LEFT   90.0
#define RIGHT  20.0
#define TOP    20.0
#define BOTTOM 50.0

static const char *const dashes[] = {"", "6 3", "2 3", "8 3 2 3", "1 5"};

static void escape(FILE *out, const char *text)
{
	for (const char *c = text; *c; c++) {
		if (*c == '<')
			fputs("&lt;", out);
		else if (*c == '>')
			fputs("&gt;", out);
		else if (*c == '&')
			fputs("&amp;", out);
		else if (*c == '"')
			fputs("&quot;", out);
		else
			fputc(*c, out);
	}
}

static double value_of(json_t *labels, const char *name)
{
	json_t *value = json_object_get(labels, name);
	return json_is_string(value) ? strtod(json_string_value(value), NULL)
				     : json_number_value(value);
}

/* A model's bytes at labels. */
static double evaluate(json_t *model, json_t *labels)
{
	double y = 0;
	size_t i;
	json_t *term;
	json_array_foreach (json_object_get(model, "terms"), i, term) {
		char name[160];
		snprintf(name, sizeof(name), "%s",
			 json_string_value(json_object_get(term, "term")));
		double factor = 1;
		if (strcmp(name, "1") != 0) {
			char *star = strchr(name, '*');
			if (star) {
				*star = '\0';
				factor = value_of(labels, name) * value_of(labels, star + 1);
			} else {
				factor = value_of(labels, name);
			}
		}
		y += json_number_value(json_object_get(term, "coefficient")) * factor;
	}
	return y;
}

struct chart {
	double x_low, x_high, y_high;
	const char *variable;
};

static double sx(const struct chart *c, double x)
{
	double span = c->x_high > c->x_low ? c->x_high - c->x_low : 1;
	return LEFT + (x - c->x_low) / span * (W - LEFT - RIGHT);
}

static double sy(const struct chart *c, double y)
{
	return H - BOTTOM - y / (c->y_high > 0 ? c->y_high : 1) * (H - TOP - BOTTOM);
}

static void axes(FILE *out, const struct chart *c, const char *what)
{
	fprintf(out, "<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='#222'/>", LEFT, H - BOTTOM,
		W - RIGHT, H - BOTTOM);
	fprintf(out, "<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='#222'/>", LEFT, TOP, LEFT,
		H - BOTTOM);
	for (int i = 0; i <= 4; i++) {
		double y = c->y_high * i / 4, x = c->x_low + (c->x_high - c->x_low) * i / 4;
		char size[32];
		fprintf(out, "<text x='%g' y='%g' text-anchor='end' font-size='11'>%s</text>",
			LEFT - 6, sy(c, y) + 4, vt_human((int64_t)llround(y), size, sizeof(size)));
		fprintf(out, "<text x='%g' y='%g' text-anchor='middle' font-size='11'>%g</text>",
			sx(c, x), H - BOTTOM + 16, round(x * 100) / 100);
	}
	fprintf(out, "<text x='%g' y='%g' text-anchor='middle' font-size='12'>", (LEFT + W) / 2,
		H - 12);
	escape(out, c->variable);
	fprintf(out,
		"</text><text x='14' y='%g' font-size='12' transform='rotate(-90 14 %g)' "
		"text-anchor='middle'>",
		(TOP + H - BOTTOM) / 2, (TOP + H - BOTTOM) / 2);
	escape(out, what);
	fputs(" (bytes)</text>", out);
}

/* A run's measured bytes: its peak, or tag's bytes at it. */
static double measured(json_t *run, const char *tag)
{
	return tag ? json_number_value(json_object_get(json_object_get(run, "tags"), tag))
		   : json_number_value(json_object_get(run, "peak_bytes"));
}

/* The range to draw: the runs, the predictions and the largest fit. */
static void measure(struct chart *c, json_t *group, json_t *fit, json_t *model, const char *tag)
{
	c->x_low = INFINITY;
	c->x_high = -INFINITY;
	c->y_high = 0;
	size_t i;
	json_t *run;
	json_array_foreach (json_object_get(group, "runs"), i, run) {
		double x = value_of(json_object_get(run, "labels"), c->variable);
		double y = measured(run, tag);
		c->x_low = fmin(c->x_low, x);
		c->x_high = fmax(c->x_high, x);
		c->y_high = fmax(c->y_high, y);
	}
	json_t *largest = json_object_get(fit, "largest_fit");
	if (!tag && json_is_object(largest) &&
	    strcmp(json_string_value(json_object_get(largest, "key")), c->variable) == 0) {
		c->x_high = fmax(c->x_high, json_number_value(json_object_get(largest, "value")));
		c->y_high = fmax(c->y_high,
				 json_number_value(json_object_get(largest, "budget_bytes")));
	}
	json_t *prediction;
	json_array_foreach (json_object_get(fit, "predictions"), i, prediction) {
		double x = value_of(json_object_get(prediction, "labels"), c->variable);
		c->x_high = fmax(c->x_high, x);
		c->x_low = fmin(c->x_low, x);
		c->y_high = fmax(c->y_high, evaluate(model, json_object_get(prediction, "labels")));
	}
	c->y_high *= 1.1;
}

/* One fitted line per combination of the other variables in the runs. */
static void lines(FILE *out, const struct chart *c, json_t *group, json_t *model)
{
	json_t *drawn = json_object();
	size_t i;
	json_t *run;
	unsigned series = 0;
	json_array_foreach (json_object_get(group, "runs"), i, run) {
		json_t *labels = json_deep_copy(json_object_get(run, "labels"));
		json_object_del(labels, c->variable);
		char *key = json_dumps(labels, JSON_SORT_KEYS | JSON_COMPACT);
		if (key && !json_object_get(drawn, key)) {
			json_object_set_new(drawn, key, json_true());
			fputs("<polyline fill='none' stroke='#333' stroke-width='1.5'", out);
			fprintf(out, " stroke-dasharray='%s' points='",
				dashes[series++ % (sizeof(dashes) / sizeof(dashes[0]))]);
			for (int step = 0; step <= 40; step++) {
				double x = c->x_low + (c->x_high - c->x_low) * step / 40;
				json_object_set_new(labels, c->variable, json_real(x));
				fprintf(out, "%.1f,%.1f ", sx(c, x),
					sy(c, fmax(0, evaluate(model, labels))));
			}
			fputs("'><title>fitted at ", out);
			escape(out, key);
			fputs("</title></polyline>", out);
		}
		free(key);
		json_decref(labels);
	}
	json_decref(drawn);
}

static void points(FILE *out, const struct chart *c, json_t *group, const char *tag)
{
	size_t i;
	json_t *run;
	json_array_foreach (json_object_get(group, "runs"), i, run) {
		double x = value_of(json_object_get(run, "labels"), c->variable);
		double y = measured(run, tag);
		char size[32];
		fprintf(out,
			"<circle cx='%.1f' cy='%.1f' r='4' fill='#000'><title>%s=%g: %s "
			"measured</title></circle>",
			sx(c, x), sy(c, y), c->variable, x,
			vt_human((int64_t)llround(y), size, sizeof(size)));
	}
}

/* Each prediction for this group, as a hollow point. */
static void predictions(FILE *out, const struct chart *c, json_t *fit, json_t *group, json_t *model)
{
	size_t i;
	json_t *prediction;
	json_array_foreach (json_object_get(fit, "predictions"), i, prediction) {
		if (strcmp(json_string_value(json_object_get(prediction, "group")),
			   json_string_value(json_object_get(group, "name"))) != 0)
			continue;
		json_t *labels = json_object_get(prediction, "labels");
		double x = value_of(labels, c->variable), y = evaluate(model, labels);
		char size[32];
		fprintf(out,
			"<circle cx='%.1f' cy='%.1f' r='5' fill='#fff' stroke='#000' "
			"stroke-width='2'><title>predicted at %s=%g: %s</title></circle>",
			sx(c, x), sy(c, fmax(0, y)), c->variable, x,
			vt_human((int64_t)llround(fmax(0, y)), size, sizeof(size)));
	}
}

static void budget(FILE *out, const struct chart *c, json_t *largest)
{
	double total = json_number_value(json_object_get(largest, "budget_bytes"));
	double usable = total - json_number_value(json_object_get(largest, "headroom_bytes"));
	char size[32];
	fprintf(out,
		"<line x1='%g' y1='%.1f' x2='%g' y2='%.1f' stroke='#900'/><text x='%g' "
		"y='%.1f' font-size='11' fill='#900'>budget %s</text>",
		LEFT, sy(c, total), W - RIGHT, sy(c, total), LEFT + 4, sy(c, total) - 4,
		vt_human((int64_t)llround(total), size, sizeof(size)));
	fprintf(out,
		"<line x1='%g' y1='%.1f' x2='%g' y2='%.1f' stroke='#900' "
		"stroke-dasharray='4 2'/><text x='%g' y='%.1f' font-size='11' fill='#900' "
		"text-anchor='end'>budget less headroom %s</text>",
		LEFT, sy(c, usable), W - RIGHT, sy(c, usable), W - RIGHT - 4, sy(c, usable) - 4,
		vt_human((int64_t)llround(usable), size, sizeof(size)));
	json_t *value = json_object_get(largest, "value");
	if (!json_is_integer(value))
		return;
	double x = (double)json_integer_value(value);
	fprintf(out,
		"<line x1='%.1f' y1='%g' x2='%.1f' y2='%g' stroke='#900'/><text x='%.1f' "
		"y='%g' font-size='11' fill='#900' text-anchor='end'>largest fit %s=%g</text>",
		sx(c, x), TOP, sx(c, x), H - BOTTOM, sx(c, x) - 4, TOP + 12, c->variable, x);
}

static void chart(FILE *out, json_t *fit, json_t *group, const char *variable, const char *tag,
		  json_t *model)
{
	struct chart c = {.variable = variable};
	measure(&c, group, fit, model, tag);
	fputs("<figure><figcaption>", out);
	escape(out, tag ? tag : "peak");
	fputs(" against ", out);
	escape(out, variable);
	fprintf(out,
		"</figcaption><svg width='%g' height='%g' "
		"role='img'>",
		W, H);
	axes(out, &c, tag ? tag : "peak");
	json_t *largest = json_object_get(fit, "largest_fit");
	if (!tag && json_is_object(largest) &&
	    strcmp(json_string_value(json_object_get(largest, "key")), variable) == 0)
		budget(out, &c, largest);
	lines(out, &c, group, model);
	points(out, &c, group, tag);
	predictions(out, &c, fit, group, model);
	fputs("</svg></figure>\n", out);
}

void vt_fit_html(json_t *fit, FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
	      "<title>vramtrace fit</title><style>body{font-family:sans-serif;color:#111;"
	      "background:#fff;margin:2em}figure{display:inline-block;margin:0 1em 1em 0}"
	      "figcaption{font-weight:bold}</style></head><body><h1>vramtrace fit</h1>\n",
	      out);
	size_t g, v;
	json_t *group, *variable;
	json_array_foreach (json_object_get(fit, "groups"), g, group) {
		fputs("<h2>", out);
		const char *name = json_string_value(json_object_get(group, "name"));
		escape(out, name[0] ? name : "the runs");
		fputs("</h2>\n", out);
		json_t *models = json_object_get(group, "model");
		json_array_foreach (json_object_get(group, "variables"), v, variable) {
			const char *variable_name =
				json_string_value(json_object_get(variable, "name"));
			chart(out, fit, group, variable_name, NULL,
			      json_object_get(models, "peak"));
			const char *tag;
			json_t *model;
			json_object_foreach (json_object_get(models, "tags"), tag, model)
				chart(out, fit, group, variable_name, tag, model);
		}
	}
	fputs("</body></html>\n", out);
}
