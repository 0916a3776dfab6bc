/* Every report is one consistent cut of what the tracer saw, whatever
 * other threads are doing: its leaks add up to its live bytes and its
 * events to its counts, on every device and the host, in every dump, in
 * the report written at exit, and in the one a signal's handler writes. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	char command[64];
	snprintf(command, sizeof(command), "rm -rf '%s'", dir);
	cr_assert_eq(system(command), 0);
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

static unsigned occurrences(const char *text, const char *needle)
{
	unsigned count = 0;
	for (const char *at = text; (at = strstr(at, needle)); at += strlen(needle))
		count++;
	return count;
}

static double number_at(json_t *report, const char *path)
{
	json_t *node = report_at(report, path);
	cr_assert(json_is_number(node), "%s is not a number", path);
	return json_number_value(node);
}

/* SIZE_MAX, (size_t)-4, 2^62 and 81 GiB through all 20 allocation entry
 * points: the simulated device refuses each with out of memory, as a real
 * one does (it granted 14 of them), with vramtrace as without, and the
 * report records 20 failures of the exact sizes asked and no byte
 * allocated. */
Test(consistency, sizes_no_gpu_has_are_refused_and_recorded_exactly)
{
	struct traced_run run;
	struct run_options bare = {.simulate = true};
	char *argv[] = {(char *)program_path("huge_sizes"), NULL};
	traced_run(&run, &bare, argv);
	cr_assert_eq(run.status, 0, "%s", run.out);
	const char *line = "huge_sizes: 20 refused, 0 wrong";
	cr_assert(strstr(run.out, line), "%s", run.out);
	traced_run_free(&run);

	/* Not named report*: the harness would read it as a plain report. */
	struct run_options traced = {.preload = true, .simulate = true, .output_name = "huge.json"};
	traced_run(&run, &traced, argv);
	cr_assert_eq(run.status, 0, "%s", run.out);
	cr_assert(strstr(run.out, line), "%s", run.out);
	char path[512];
	snprintf(path, sizeof(path), "%s/huge.json", run.dir);
	FILE *file = fopen(path, "r");
	cr_assert(file, "no report: %s", run.err);
	static char text[1 << 20];
	size_t length = fread(text, 1, sizeof(text) - 1, file);
	fclose(file);
	text[length] = '\0';
	cr_assert_eq(occurrences(text, "\"bytes\": 18446744073709551615"), 12);
	cr_assert_eq(occurrences(text, "\"bytes\": 18446744073709551612"), 4);
	cr_assert_eq(occurrences(text, "\"bytes\": 4611686018427387904"), 3);
	cr_assert_eq(occurrences(text, "\"bytes\": 86973087744"), 1);
	json_error_t error;
	json_t *report = json_loads(text, JSON_DECODE_INT_AS_REAL, &error);
	cr_assert(report, "%s", error.text);
	cr_assert_eq(number_at(report, "devices/0/failed_allocations"), 16);
	cr_assert_eq(number_at(report, "host/failed_allocations"), 4);
	cr_assert_eq(number_at(report, "tracer/failures_total"), 20);
	cr_assert_eq(number_at(report, "tracer/events"), 20);
	const char *owners[] = {"devices/0", "host"};
	for (int i = 0; i < 2; i++) {
		char field[64];
		const char *fields[] = {"allocations", "bytes_allocated", "live_at_exit_bytes",
					"peak/bytes"};
		for (int f = 0; f < 4; f++) {
			snprintf(field, sizeof(field), "%s/%s", owners[i], fields[f]);
			cr_assert_eq(number_at(report, field), 0, "%s", field);
		}
	}
	json_decref(report);
	traced_run_free(&run);
}

static void make_temporary_dir(char *dir, size_t size, const char *name)
{
	snprintf(dir, size, "/tmp/vramtrace-%s.XXXXXX", name);
	cr_assert(mkdtemp(dir));
}

static void remove_tree(const char *dir)
{
	char command[600];
	snprintf(command, sizeof(command), "rm -rf '%s'", dir);
	cr_assert_eq(system(command), 0);
}

static unsigned files_in(const char *dir, const char *suffix)
{
	unsigned count = 0;
	DIR *listing = opendir(dir);
	cr_assert(listing, "%s", dir);
	for (struct dirent *entry; (entry = readdir(listing));) {
		size_t length = strlen(entry->d_name), tail = strlen(suffix);
		if (entry->d_name[0] != '.' && length >= tail &&
		    strcmp(entry->d_name + length - tail, suffix) == 0)
			count++;
	}
	closedir(listing);
	return count;
}

/* The working directory removed before the first CUDA call: a relative
 * VRAMTRACE_OUTPUT has no place, so the report goes to $TMPDIR, and the
 * warning says why in words (it said "expands to a path too long" and
 * "cannot write the report to : Success"). */
Test(consistency, a_removed_working_directory_sends_the_report_to_tmpdir)
{
	char tmpdir[64], gone[64], env_tmpdir[128];
	make_temporary_dir(tmpdir, sizeof(tmpdir), "tmpdir");
	make_temporary_dir(gone, sizeof(gone), "gone");
	snprintf(env_tmpdir, sizeof(env_tmpdir), "TMPDIR=%s", tmpdir);
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMTRACE_OUTPUT=moved.%p.json", env_tmpdir, NULL}};
	struct traced_run run;
	traced_run(&run, &options,
		   (char *[]){(char *)program_path("odd_names"), "gone", gone, NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.err, "vramtrace: the working directory is gone (No such file or "
				  "directory), so the relative VRAMTRACE_OUTPUT 'moved.%p.json' "
				  "has no place there; the report goes to "),
		  "%s", run.err);
	cr_assert(strstr(run.err, tmpdir), "%s", run.err);
	cr_assert_not(strstr(run.err, "too long"), "%s", run.err);
	cr_assert_not(strstr(run.err, "Success"), "%s", run.err);
	cr_assert_eq(files_in(tmpdir, ".json"), 1, "the report in %s", tmpdir);
	char command[256];
	snprintf(command, sizeof(command),
		 "grep -q '\"live_at_exit_bytes\": 3145728' %s/moved.*.json", tmpdir);
	cr_assert_eq(system(command), 0, "the report holds the 3 MiB allocation");
	traced_run_free(&run);
	remove_tree(tmpdir);
}

/* vramtrace_dump("") is the default dump beside the report; a directory,
 * with or without its '/', takes the default name inside; /dev/null is
 * written to (the report discarded, as asked); a FIFO with no reader and a
 * missing directory fail with -1 and a warning. No file named "-1",
 * "sub/-1" or "/dev/null-1" appears. */
Test(consistency, dump_paths_that_name_a_directory_or_a_device)
{
	char dir[64], sub[128], sub_slash[128], fifo[128], missing[128];
	make_temporary_dir(dir, sizeof(dir), "dumps");
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(sub_slash, sizeof(sub_slash), "%s/sub/", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(missing, sizeof(missing), "%s/none/x.json", dir);
	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	struct run_options options = {.preload = true, .simulate = true};
	struct traced_run run;
	traced_run(&run, &options,
		   (char *[]){(char *)program_path("odd_names"), "dump", "", sub_slash, sub,
			      "/dev/null", fifo, missing, NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	char want[1024];
	snprintf(want, sizeof(want),
		 "dump : 0\ndump %s: 0\ndump %s: 0\ndump /dev/null: 0\ndump %s: -1\ndump %s: -1\n",
		 sub_slash, sub, fifo, missing);
	cr_assert_str_eq(run.out, want);
	char beside[512];
	snprintf(beside, sizeof(beside), "%s/report.dump1.json", run.dir);
	cr_assert_eq(access(beside, F_OK), 0, "the default dump beside the report");
	cr_assert_eq(files_in(sub, ".json"), 2, "both dumps inside sub");
	cr_assert_eq(files_in(sub, "-1"), 0);
	cr_assert_eq(files_in(dir, "-1"), 0);
	cr_assert_neq(access("/dev/null-1", F_OK), 0, "nothing beside /dev/null");
	char fifo_warning[256];
	snprintf(fifo_warning, sizeof(fifo_warning),
		 "vramtrace: vramtrace_dump: cannot write the report to %s: a FIFO no process has "
		 "open for reading",
		 fifo);
	cr_assert(strstr(run.err, fifo_warning), "%s", run.err);
	traced_run_free(&run);
	remove_tree(dir);
}
