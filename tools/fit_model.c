#include "fit.h"

#include <math.h>
#include <string.h>

double vt_fit_term_value(struct vt_fit_term term, const double *x)
{
	return (term.a < 0 ? 1.0 : x[term.a]) * (term.b < 0 ? 1.0 : x[term.b]);
}

double vt_fit_predict(const struct vt_fit_model *model, const double *x)
{
	double y = 0;
	for (unsigned t = 0; t < model->term_count; t++)
		y += model->coefficients[t] * vt_fit_term_value(model->terms[t], x);
	return y;
}

void vt_fit_along(const struct vt_fit_model *model, const double *x, unsigned variable,
		  double *base, double *slope)
{
	*base = *slope = 0;
	for (unsigned t = 0; t < model->term_count; t++) {
		struct vt_fit_term term = model->terms[t];
		double c = model->coefficients[t];
		if (term.a == (int)variable && term.b < 0)
			*slope += c;
		else if (term.a == (int)variable)
			*slope += c * x[term.b];
		else if (term.b == (int)variable)
			*slope += c * x[term.a];
		else
			*base += c * vt_fit_term_value(term, x);
	}
}

/* Every candidate term: the constant, each variable, each product. */
static unsigned candidate_terms(unsigned variables, struct vt_fit_term *terms)
{
	unsigned count = 0;
	terms[count++] = (struct vt_fit_term){-1, -1};
	for (unsigned v = 0; v < variables; v++)
		terms[count++] = (struct vt_fit_term){(int)v, -1};
	for (unsigned v = 0; v < variables; v++)
		for (unsigned w = v + 1; w < variables; w++)
			terms[count++] = (struct vt_fit_term){(int)v, (int)w};
	return count;
}

/* Least squares over the runs in use (skip: the one left out, or -1), by
 * the normal equations on columns scaled to 1, solved with partial
 * pivoting. False when the terms are not independent over these runs. */
static bool least_squares(const struct vt_fit_data *data, const struct vt_fit_term *terms,
			  unsigned k, int skip, double *coefficients)
{
	double scale[VT_FIT_MAX_TERMS];
	for (unsigned t = 0; t < k; t++) {
		scale[t] = 0;
		for (unsigned r = 0; r < data->run_count; r++)
			scale[t] = fmax(scale[t], fabs(vt_fit_term_value(terms[t], data->x[r])));
		if (scale[t] == 0)
			return false;
	}
	double a[VT_FIT_MAX_TERMS][VT_FIT_MAX_TERMS + 1];
	memset(a, 0, sizeof(a));
	for (unsigned r = 0; r < data->run_count; r++) {
		if ((int)r == skip)
			continue;
		double column[VT_FIT_MAX_TERMS];
		for (unsigned t = 0; t < k; t++)
			column[t] = vt_fit_term_value(terms[t], data->x[r]) / scale[t];
		for (unsigned i = 0; i < k; i++) {
			for (unsigned j = 0; j < k; j++)
				a[i][j] += column[i] * column[j];
			a[i][k] += column[i] * data->y[r];
		}
	}
	for (unsigned c = 0; c < k; c++) {
		unsigned pivot = c;
		for (unsigned r = c + 1; r < k; r++)
			if (fabs(a[r][c]) > fabs(a[pivot][c]))
				pivot = r;
		if (fabs(a[pivot][c]) < 1e-9)
			return false;
		for (unsigned j = 0; j <= k; j++) {
			double held = a[c][j];
			a[c][j] = a[pivot][j];
			a[pivot][j] = held;
		}
		for (unsigned r = 0; r < k; r++) {
			if (r == c)
				continue;
			double factor = a[r][c] / a[c][c];
			for (unsigned j = c; j <= k; j++)
				a[r][j] -= factor * a[c][j];
		}
	}
	for (unsigned t = 0; t < k; t++)
		coefficients[t] = a[t][k] / a[t][t] / scale[t];
	return true;
}

static double term_sum(const struct vt_fit_term *terms, const double *coefficients, unsigned k,
		       const double *x)
{
	double y = 0;
	for (unsigned t = 0; t < k; t++)
		y += coefficients[t] * vt_fit_term_value(terms[t], x);
	return y;
}

/* A miss within the allocator's rounding (or a thousandth) is no miss. */
static double beyond_granularity(double miss, double y)
{
	double allowed = fmax(VT_FIT_GRANULARITY, fabs(y) / 1000);
	return fmax(0, fabs(miss) - allowed);
}

struct scored {
	struct vt_fit_model model;
	double score; /* root mean square of the leave-one-out misses beyond rounding */
};

/* Fits terms, then scores them by leaving each run out in turn. */
static bool score_subset(const struct vt_fit_data *data, const struct vt_fit_term *terms,
			 unsigned k, struct scored *out)
{
	if (data->run_count <= k)
		return false;
	double coefficients[VT_FIT_MAX_TERMS];
	if (!least_squares(data, terms, k, -1, coefficients))
		return false;
	double squares = 0, loo_max = 0, fit_max = 0;
	for (unsigned r = 0; r < data->run_count; r++) {
		double left_out[VT_FIT_MAX_TERMS];
		if (!least_squares(data, terms, k, (int)r, left_out))
			return false;
		double miss = data->y[r] - term_sum(terms, left_out, k, data->x[r]);
		double beyond = beyond_granularity(miss, data->y[r]);
		squares += beyond * beyond;
		loo_max = fmax(loo_max, fabs(miss));
		fit_max = fmax(fit_max,
			       fabs(data->y[r] - term_sum(terms, coefficients, k, data->x[r])));
	}
	out->score = sqrt(squares / data->run_count);
	out->model = (struct vt_fit_model){
		.term_count = k, .loo_max_error = loo_max, .fit_max_error = fit_max, .valid = true};
	memcpy(out->model.terms, terms, k * sizeof(*terms));
	memcpy(out->model.coefficients, coefficients, k * sizeof(*coefficients));
	return true;
}

/* Better: a clearly lower score, else as good with fewer terms, else the
 * smaller leave-one-out miss. */
static bool better(const struct scored *a, const struct scored *b)
{
	double tolerance = fmax(b->score, a->score) * 0.05 + 1;
	if (fabs(a->score - b->score) > tolerance)
		return a->score < b->score;
	if (a->model.term_count != b->model.term_count)
		return a->model.term_count < b->model.term_count;
	return a->model.loo_max_error < b->model.loo_max_error;
}

struct vt_fit_model vt_fit_select(const struct vt_fit_data *data)
{
	struct vt_fit_term all[VT_FIT_MAX_TERMS];
	unsigned n = candidate_terms(data->variable_count, all);
	struct scored best = {.model.valid = false};
	for (unsigned long mask = 1; mask < (1ul << n); mask++) {
		struct vt_fit_term chosen[VT_FIT_MAX_TERMS];
		unsigned k = 0;
		for (unsigned t = 0; t < n; t++)
			if (mask & (1ul << t))
				chosen[k++] = all[t];
		struct scored candidate;
		if (score_subset(data, chosen, k, &candidate) &&
		    (!best.model.valid || better(&candidate, &best)))
			best = candidate;
	}
	return best.model;
}
