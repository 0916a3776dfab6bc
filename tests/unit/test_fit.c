#include <criterion/criterion.h>
#include <math.h>

#include "fit.h"
#include "formats.h"

/* Runs at (batch, context) made by f. */
static struct vt_fit_data runs(double (*f)(double, double), const double *batches, unsigned nb,
			       const double *contexts, unsigned nc)
{
	struct vt_fit_data data = {.variable_count = nc > 1 ? 2 : 1};
	for (unsigned i = 0; i < nb; i++)
		for (unsigned j = 0; j < nc; j++) {
			unsigned r = data.run_count++;
			double context = contexts ? contexts[j] : 0;
			data.x[r][0] = batches[i];
			data.x[r][1] = context;
			data.y[r] = f(batches[i], context);
		}
	return data;
}

#define GiB (1024.0 * 1024 * 1024)
#define MiB (1024.0 * 1024)

static double linear(double b, double c)
{
	(void)c;
	return 13 * GiB + 512 * MiB * b;
}

Test(fit, a_constant_and_one_variable_exactly)
{
	const double batches[] = {2, 4, 8};
	struct vt_fit_data data = runs(linear, batches, 3, NULL, 1);
	struct vt_fit_model model = vt_fit_select(&data);
	cr_assert(model.valid);
	cr_assert_eq(model.term_count, 2, "the constant and batch");
	double x[] = {32};
	cr_assert_float_eq(vt_fit_predict(&model, x), 13 * GiB + 16 * GiB, 1.0);
	cr_assert_float_eq(model.loo_max_error, 0, 1.0);
	double base, slope;
	vt_fit_along(&model, x, 0, &base, &slope);
	cr_assert_float_eq(slope, 512 * MiB, 1e-3);
	cr_assert_float_eq(base, 13 * GiB, 1.0);
}

static double proportional(double b, double c)
{
	(void)c;
	return 512 * MiB * b;
}

Test(fit, no_constant_when_none_is_needed)
{
	const double batches[] = {2, 4, 8};
	struct vt_fit_data data = runs(proportional, batches, 3, NULL, 1);
	struct vt_fit_model model = vt_fit_select(&data);
	cr_assert_eq(model.term_count, 1);
	cr_assert_eq(model.terms[0].a, 0);
	cr_assert_eq(model.terms[0].b, -1);
}

/* Weights, a KV cache and activations in batch x context, a workspace. */
static double serving(double b, double c)
{
	return 14e9 + 128 * 1024.0 * b * c + 32 * 1024.0 * b * c + 256 * MiB;
}

Test(fit, a_product_of_two_variables_from_six_runs)
{
	const double batches[] = {2, 4, 8}, contexts[] = {1024, 4096};
	struct vt_fit_data data = runs(serving, batches, 3, contexts, 2);
	struct vt_fit_model model = vt_fit_select(&data);
	cr_assert_eq(model.term_count, 2, "the constant and batch*context");
	double x[] = {16, 16384};
	double predicted = vt_fit_predict(&model, x);
	cr_assert_float_eq(predicted, serving(16, 16384), serving(16, 16384) * 1e-9);
}

/* Allocator rounding to 2 MiB must not buy a model extra terms. */
static double rounded(double b, double c)
{
	(void)c;
	double exact = 3 * GiB + 100 * MiB * b + 300000 * sin(b * 7);
	return exact;
}

Test(fit, steps_of_the_allocators_rounding_are_no_term)
{
	const double batches[] = {1, 2, 3, 4, 5, 6};
	struct vt_fit_data data = runs(rounded, batches, 6, NULL, 1);
	struct vt_fit_model model = vt_fit_select(&data);
	cr_assert_eq(model.term_count, 2);
	cr_assert_lt(model.fit_max_error, 2 * MiB);
}

Test(fit, too_few_runs_fit_nothing)
{
	const double batches[] = {8};
	struct vt_fit_data data = runs(linear, batches, 1, NULL, 1);
	cr_assert_not(vt_fit_select(&data).valid);
}

/* A fitted coefficient or residual may be negative: its size keeps the
 * sign (it was once printed as 0 B). */
Test(fit, negative_sizes_keep_their_sign)
{
	char text[32];
	cr_assert_str_eq(vt_human(-((int64_t)512 << 20), text, sizeof(text)), "-512.00 MiB");
	cr_assert_str_eq(vt_human((int64_t)3 << 29, text, sizeof(text)), "1.50 GiB");
	cr_assert_str_eq(vt_human(INT64_MIN, text, sizeof(text)), "-8.00 EiB");
}
