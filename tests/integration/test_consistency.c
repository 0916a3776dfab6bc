/* Every report is one consistent cut of what the tracer saw, whatever
 * other threads are doing: its leaks add up to its live bytes and its
 * events to its counts, on every device and the host, in every dump, in
 * the report written at exit, and in the one a signal's handler writes. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define RUNS  12
#define DUMPS 8

struct totals {
	int64_t events; /* allocations, frees and failures */
	int64_t failures;
};

static int64_t sum_of(json_t *array, const char *field)
{
	int64_t sum = 0;
	size_t i;
	json_t *entry;
	json_array_foreach (array, i, entry)
		sum += json_integer_value(json_object_get(entry, field));
	return sum;
}

/* One device's (or the host's) figures agree with one another. */
static void check_owner(json_t *owner, const char *name, bool leaks, struct totals *totals)
{
	int64_t live = json_integer_value(json_object_get(owner, "live_at_exit_bytes"));
	int64_t count = json_integer_value(json_object_get(owner, "live_at_exit_allocations"));
	int64_t allocs = json_integer_value(json_object_get(owner, "allocations"));
	int64_t frees = json_integer_value(json_object_get(owner, "frees"));
	int64_t failed = json_integer_value(json_object_get(owner, "failed_allocations"));
	cr_assert_eq(allocs - frees, count, "%s: %ld allocations - %ld frees != %ld live", name,
		     (long)allocs, (long)frees, (long)count);
	cr_assert_eq(sum_of(json_object_get(owner, "kinds"), "live_at_exit_bytes"), live,
		     "%s: the kinds' live bytes are not %ld", name, (long)live);
	cr_assert_eq(sum_of(json_object_get(owner, "tags"), "live_at_exit_bytes"), live,
		     "%s: the tags' live bytes are not %ld", name, (long)live);
	if (leaks) {
		json_t *groups = json_object_get(owner, "leaks");
		cr_assert_eq(sum_of(groups, "bytes"), live, "%s: leaks %ld bytes, live %ld", name,
			     (long)sum_of(groups, "bytes"), (long)live);
		cr_assert_eq(sum_of(groups, "count"), count, "%s: leaks %ld allocations, live %ld",
			     name, (long)sum_of(groups, "count"), (long)count);
	}
	totals->events += allocs + frees + failed;
	totals->failures += failed;
}

static void check_report(json_t *report, const char *path)
{
	bool emergency = json_is_true(report_at(report, "tracer/emergency"));
	struct totals totals = {0};
	size_t i;
	json_t *device;
	json_array_foreach (report_at(report, "devices"), i, device)
		check_owner(device, path, !emergency, &totals);
	check_owner(report_at(report, "host"), path, !emergency, &totals);
	int64_t events = report_int(report, "tracer/events");
	int64_t others = report_int(report, "tracer/deduplicated") +
			 report_int(report, "tracer/unknown_frees") +
			 report_int(report, "tracer/dropped");
	cr_assert_eq(totals.events + others, events, "%s: counts add up to %ld, events %ld", path,
		     (long)(totals.events + others), (long)events);
	cr_assert_eq(report_int(report, "tracer/failures_total"), totals.failures,
		     "%s: failures_total against the devices' %ld", path, (long)totals.failures);
	cr_assert_gt(events, 0, "%s: no events", path);
}

/* Checks every report the run left; returns how many. */
static unsigned check_run_reports(const char *dir)
{
	unsigned checked = 0;
	DIR *listing = opendir(dir);
	cr_assert(listing);
	for (struct dirent *entry; (entry = readdir(listing));) {
		size_t length = strlen(entry->d_name);
		if (length < 5 || strcmp(entry->d_name + length - 5, ".json") != 0)
			continue;
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
		json_error_t error;
		json_t *report = json_load_file(path, 0, &error);
		cr_assert(report, "%s: %s", path, error.text);
		check_report(report, path);
		json_decref(report);
		checked++;
	}
	closedir(listing);
	return checked;
}

static unsigned run_once(const char *ending, int want_status)
{
	struct traced_run run;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMSIM_DEVICES=2", "VRAMTRACE_TOP=100000", NULL},
	};
	char dumps[16];
	snprintf(dumps, sizeof(dumps), "%d", DUMPS);
	char *argv[] = {(char *)program_path("consistent_cut"), dumps, NULL, (char *)ending, NULL};
	/* The dumps go beside the report, in the run's own directory: its
	 * name is known only once made, so the program is given it after. */
	char dir[] = "/tmp/vramtrace-cut.XXXXXX";
	cr_assert(mkdtemp(dir));
	argv[2] = dir;
	traced_run(&run, &options, argv);
	cr_assert_eq(run.status, want_status, "exited %d: %s", run.status, run.err);
	cr_assert(run.report, "no report at the end: %s", run.err);
	check_report(run.report, "the final report");
	unsigned checked = 1 + check_run_reports(dir);
	cr_assert_eq(checked, 1 + DUMPS, "%u reports", checked);
	remove_tree(dir);
	traced_run_free(&run);
	return checked;
}

Test(consistency, reports_agree_with_themselves_while_threads_allocate, .timeout = 300)
{
	unsigned checked = 0;
	for (int i = 0; i < RUNS; i++)
		checked += run_once("exit", 0);
	cr_assert_eq(checked, RUNS * (1 + DUMPS));
}

Test(consistency, a_signal_report_agrees_with_itself_while_threads_allocate, .timeout = 300)
{
	unsigned checked = 0;
	for (int i = 0; i < RUNS / 2; i++)
		checked += run_once("signal", 143);
	cr_assert_eq(checked, RUNS / 2 * (1 + DUMPS));
}
