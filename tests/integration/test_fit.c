/* vramtrace fit on the example server, whose memory follows a known
 * formula: weights fixed, a KV cache in sessions x context, activations in
 * batch x context, a fixed workspace. Runs with sessions = batch make the
 * KV cache grow with batch x context too. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define MAX_RUNS 8

struct runs {
	struct traced_run traced[MAX_RUNS];
	char paths[MAX_RUNS][300];
	unsigned count;
};

/* The example at batch (and sessions) b, context c, dtype d; labelled. */
static void measure(struct runs *runs, unsigned b, unsigned c, const char *dtype)
{
	char label[200], batch[16], context[16];
	snprintf(label, sizeof(label), "VRAMTRACE_LABEL=batch=%u,context=%u,dtype=%s", b, c, dtype);
	snprintf(batch, sizeof(batch), "%u", b);
	snprintf(context, sizeof(context), "%u", c);
	struct run_options options = {
		.preload = true, .simulate = true, .env = (const char *const[]){label, NULL}};
	struct traced_run *run = &runs->traced[runs->count];
	traced_run(run, &options,
		   (char *[]){(char *)build_path("VT_TEST_LLM_SERVING"), "--batch", batch,
			      "--sessions", batch, "--context", context, "--dtype", (char *)dtype,
			      NULL});
	cr_assert_eq(run->status, 0, "%s", run->err);
	char dir[sizeof(run->dir)];
	memcpy(dir, run->dir, sizeof(dir));
	snprintf(runs->paths[runs->count], sizeof(runs->paths[0]), "%s/report.json", dir);
	runs->count++;
}

/* The example's own figure for a setting, run without vramtrace. */
static long long expected_peak(unsigned b, unsigned c, const char *dtype)
{
	char command[800];
	snprintf(command, sizeof(command),
		 "LD_LIBRARY_PATH=%s %s --batch %u --sessions %u --context %u --dtype %s | "
		 "sed -n 's/.*expected_peak=\\([0-9]*\\).*/\\1/p'",
		 build_path("VT_TEST_SIM_DIR"), build_path("VT_TEST_LLM_SERVING"), b, b, c, dtype);
	FILE *out = popen(command, "r");
	long long peak = 0;
	cr_assert_eq(fscanf(out, "%lld", &peak), 1);
	pclose(out);
	return peak;
}

/* vramtrace fit on the runs plus args; its JSON, or NULL (status set). */
static json_t *fit(struct runs *runs, const char *args, int *status, char *err, size_t size)
{
	char command[4096];
	size_t used = (size_t)snprintf(command, sizeof(command), "%s fit --format json",
				       build_path("VT_TEST_TOOL"));
	for (unsigned i = 0; i < runs->count; i++)
		used += (size_t)snprintf(command + used, sizeof(command) - used, " %s",
					 runs->paths[i]);
	snprintf(command + used, sizeof(command) - used,
		 " %s > /tmp/vt-fit.%d.json 2> "
		 "/tmp/vt-fit.%d.err",
		 args, (int)getpid(), (int)getpid());
	*status = WEXITSTATUS(system(command));
	char path[64];
	snprintf(path, sizeof(path), "/tmp/vt-fit.%d.err", (int)getpid());
	FILE *file = fopen(path, "r");
	size_t got = file ? fread(err, 1, size - 1, file) : 0;
	err[got] = '\0';
	if (file)
		fclose(file);
	unlink(path);
	snprintf(path, sizeof(path), "/tmp/vt-fit.%d.json", (int)getpid());
	json_t *document = *status == 0 ? json_load_file(path, 0, NULL) : NULL;
	unlink(path);
	return document;
}

static void release(struct runs *runs)
{
	for (unsigned i = 0; i < runs->count; i++)
		traced_run_free(&runs->traced[i]);
}

static double off_by(long long got, long long want)
{
	return 100.0 * (double)llabs(got - want) / (double)want;
}

Test(fit, batch_32_from_batches_2_4_8, .timeout = 60)
{
	struct runs runs = {0};
	for (unsigned b = 2; b <= 8; b *= 2)
		measure(&runs, b, 4096, "bf16");
	int status;
	char err[2048];
	json_t *document = fit(&runs, "--predict batch=32", &status, err, sizeof(err));
	cr_assert_eq(status, 0, "%s", err);
	json_t *prediction = report_at(document, "predictions/0");
	long long peak = report_int(prediction, "peak_bytes");
	long long want = expected_peak(32, 4096, "bf16");
	cr_assert_leq(off_by(peak, want), 0.5, "%lld against %lld", peak, want);
	/* The KV cache: 8 MiB per token of context per session at 4096 tokens. */
	long long kv = report_int(prediction, "tags/kv_cache");
	long long kv_at_8 = report_int(document, "groups/0/runs/2/tags/kv_cache");
	cr_assert_leq(off_by(kv, kv_at_8 * 4), 0.5, "%lld against %lld", kv, kv_at_8 * 4);
	cr_assert(json_is_true(report_at(prediction, "extrapolated")));
	cr_assert(strstr(err, "batch=32 is 24 above the measured 2 to 8"), "%s", err);
	json_decref(document);
	release(&runs);
}

Test(fit, dtypes_are_fitted_apart, .timeout = 60)
{
	struct runs runs = {0};
	for (unsigned b = 2; b <= 8; b *= 2) {
		measure(&runs, b, 1024, "bf16");
		measure(&runs, b, 1024, "fp32");
	}
	int status;
	char err[2048];
	json_t *document = fit(&runs, "--predict batch=16,dtype=fp32 --predict batch=16,dtype=bf16",
			       &status, err, sizeof(err));
	cr_assert_eq(status, 0, "%s", err);
	cr_assert_eq(json_array_size(report_at(document, "groups")), 2);
	cr_assert_eq(report_int(document, "predictions/0/peak_bytes"),
		     expected_peak(16, 1024, "fp32"));
	cr_assert_eq(report_int(document, "predictions/1/peak_bytes"),
		     expected_peak(16, 1024, "bf16"));
	cr_assert_str_eq(report_string(document, "predictions/0/labels/dtype"), "fp32");
	json_decref(document);
	/* Without saying which, the prediction is refused. */
	document = fit(&runs, "--predict batch=16", &status, err, sizeof(err));
	cr_assert_eq(status, 2);
	cr_assert(strstr(err, "several groups of runs match"), "%s", err);
	release(&runs);
}

Test(fit, batch_and_context_from_six_runs, .timeout = 60)
{
	struct runs runs = {0};
	for (unsigned b = 2; b <= 8; b *= 2)
		for (unsigned c = 1024; c <= 4096; c *= 4)
			measure(&runs, b, c, "bf16");
	int status;
	char err[2048];
	json_t *document =
		fit(&runs, "--predict batch=16,context=16384", &status, err, sizeof(err));
	cr_assert_eq(status, 0, "%s", err);
	long long peak = report_int(document, "predictions/0/peak_bytes");
	long long want = expected_peak(16, 16384, "bf16");
	cr_assert_leq(off_by(peak, want), 1.0, "%lld against %lld", peak, want);
	cr_assert_str_eq(report_string(document, "groups/0/model/peak/terms/1/term"),
			 "batch*context");
	json_decref(document);
	release(&runs);
}

Test(fit, the_largest_batch_that_fits_a_budget_with_headroom, .timeout = 60)
{
	struct runs runs = {0};
	for (unsigned b = 2; b <= 8; b *= 2)
		measure(&runs, b, 4096, "bf16");
	int status;
	char err[2048];
	json_t *document = fit(&runs, "--budget 80GiB --headroom 10% --solve batch", &status, err,
			       sizeof(err));
	cr_assert_eq(status, 0, "%s", err);
	long long value = report_int(document, "largest_fit/value");
	long long limit = 80ll * 1024 * 1024 * 1024 - 8ll * 1024 * 1024 * 1024;
	cr_assert_eq(report_int(document, "largest_fit/headroom_bytes"), 8ll << 30);
	cr_assert_leq(expected_peak((unsigned)value, 4096, "bf16"), limit);
	cr_assert_gt(expected_peak((unsigned)value + 1, 4096, "bf16"), limit, "the largest");
	cr_assert_eq(report_int(document, "largest_fit/peak_bytes"),
		     expected_peak((unsigned)value, 4096, "bf16"));
	json_decref(document);
	/* The page: one file, charts of every model, the budget and the fit. */
	char command[1600], page[400];
	snprintf(page, sizeof(page), "%s/fit.html", runs.traced[0].dir);
	snprintf(command, sizeof(command),
		 "%s fit %s %s %s --budget 80GiB --headroom 10%% --solve batch --format html -o %s",
		 build_path("VT_TEST_TOOL"), runs.paths[0], runs.paths[1], runs.paths[2], page);
	cr_assert_eq(system(command), 0);
	snprintf(command, sizeof(command),
		 "grep -q '\"page\":\"fit\"' %s && grep -q "
		 "'\"largest_fit\":{\"key\":\"batch\",\"value\":%lld,' %s && "
		 "! grep -q -e 'http' -e '<script src' %s",
		 page, value, page, page);
	cr_assert_eq(system(command), 0,
		     "the fit's document for the page's script (html_pages draws it in "
		     "Chromium), the largest fit, nothing fetched");
	release(&runs);
}

Test(fit, bad_input_exits_2_with_a_reason, .timeout = 60)
{
	struct runs runs = {0};
	measure(&runs, 8, 4096, "bf16");
	int status;
	char err[2048];
	fit(&runs, "", &status, err, sizeof(err));
	cr_assert_eq(status, 2, "a single run");
	cr_assert(strstr(err, "a single run cannot be fitted"), "%s", err);
	measure(&runs, 8, 4096, "bf16");
	fit(&runs, "", &status, err, sizeof(err));
	cr_assert_eq(status, 2, "no variation");
	cr_assert(strstr(err, "do not differ in any numeric label"), "%s", err);
	measure(&runs, 4, 4096, "bf16");
	fit(&runs, "--predict heads=8", &status, err, sizeof(err));
	cr_assert_eq(status, 2, "an unknown label");
	cr_assert(strstr(err, "--predict names heads, a label no run has"), "%s", err);
	fit(&runs, "--predict context=8192", &status, err, sizeof(err));
	cr_assert_eq(status, 2, "a label that never varied");
	cr_assert(strstr(err, "context was 4096 in every run"), "%s", err);
	char command[600];
	snprintf(command, sizeof(command), "%s fit /no/such.json %s 2>&1 | grep -q 'cannot read'",
		 build_path("VT_TEST_TOOL"), runs.paths[0]);
	cr_assert_eq(system(command), 0, "an unreadable report is named");
	/* Device ordinals as report and check read them: up to 1023. */
	fit(&runs, "--device 100", &status, err, sizeof(err));
	cr_assert_eq(status, 2, "a device the runs lack");
	cr_assert(strstr(err, "has no device 100 (its devices: 0)"), "%s", err);
	fit(&runs, "--device 1024", &status, err, sizeof(err));
	cr_assert_eq(status, 2, "a device past the ordinals");
	cr_assert(strstr(err, "--device '1024' is not a whole number from 0 to 1023"), "%s", err);
	release(&runs);
}

/* minimal.json as process pid at batch, written to path. */
static void flat_run(char *path, int pid, const char *batch)
{
	json_t *report = json_load_file(fixture_path("minimal.json"), 0, NULL);
	cr_assert(report);
	json_t *run = json_object_get(report, "run");
	json_object_set_new(run, "pid", json_integer(pid));
	json_object_set_new(run, "labels", json_pack("{s:s}", "batch", batch));
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(json_dumpfd(report, fd, 0), 0);
	close(fd);
	json_decref(report);
}

/* A peak that does not grow with the variable fits at every value when it
 * fits at all: --solve said "none" for it even when it was under the
 * budget. */
Test(fit, a_flat_peak_fits_at_any_value_or_at_none)
{
	char a[] = "/tmp/vt-flat.XXXXXX", b[] = "/tmp/vt-flat.XXXXXX";
	flat_run(a, 1, "8");
	flat_run(b, 2, "16");
	static const char *const budgets[] = {"1KiB", "999"};
	static const char *const answers[] = {
		"largest batch that fits 1.00 KiB with 0 B kept free: any value (the peak does "
		"not grow with it; predicted 1000 B)\n",
		"largest batch that fits 999 B with 0 B kept free: none (the peak does not grow "
		"with it; predicted 1000 B, over the budget)\n"};
	for (int i = 0; i < 2; i++) {
		struct traced_run run;
		run_tool(&run,
			 (char *[]){"fit", a, b, "--solve", "batch", "--budget", (char *)budgets[i],
				    NULL},
			 NULL);
		cr_assert_eq(run.status, 0, "%s", run.err);
		const char *last = strstr(run.out, "largest batch");
		cr_assert(last, "%s", run.out);
		cr_assert_str_eq(last, answers[i]);
		traced_run_free(&run);
	}
	unlink(a);
	unlink(b);
}
