/* vramtrace fit: measured peaks at several settings, fitted so that the
 * peak (and each tag's bytes at it) can be predicted at settings not yet
 * run. A model is a sum of the fewest terms, among a constant, each
 * variable and the product of two variables, chosen by leave-one-out
 * error with the allocator's granularity allowed for. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VT_FIT_MAX_VARIABLES 4
#define VT_FIT_MAX_TERMS \
	(1 + VT_FIT_MAX_VARIABLES + VT_FIT_MAX_VARIABLES * (VT_FIT_MAX_VARIABLES - 1) / 2)
#define VT_FIT_MAX_RUNS 256
/* Steps this small are the allocator's rounding, not a missing term. */
#define VT_FIT_GRANULARITY (2.0 * 1024 * 1024)

/* A term: the constant (both -1), one variable (b -1), or a product. */
struct vt_fit_term {
	int a, b;
};

struct vt_fit_model {
	unsigned term_count;
	struct vt_fit_term terms[VT_FIT_MAX_TERMS];
	double coefficients[VT_FIT_MAX_TERMS];
	double loo_max_error; /* the largest leave-one-out miss, bytes */
	double fit_max_error; /* the largest in-sample residual, bytes */
	bool valid;
};

/* The runs to fit: x[run][variable], y[run]. */
struct vt_fit_data {
	unsigned run_count, variable_count;
	double x[VT_FIT_MAX_RUNS][VT_FIT_MAX_VARIABLES];
	double y[VT_FIT_MAX_RUNS];
};

/* The model of y that explains the runs with the fewest terms; invalid
 * when no subset of terms can be fitted (too few runs). */
struct vt_fit_model vt_fit_select(const struct vt_fit_data *data);
double vt_fit_predict(const struct vt_fit_model *model, const double *x);
/* The value of term at x. */
double vt_fit_term_value(struct vt_fit_term term, const double *x);
/* The model along one variable with the others at x: y = base + slope * v. */
void vt_fit_along(const struct vt_fit_model *model, const double *x, unsigned variable,
		  double *base, double *slope);
