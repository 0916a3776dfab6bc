/* Runs a test program the way a user would (under the preload, on the
 * simulated device), and loads the report it wrote with a real JSON
 * parser. Paths come from the environment meson gives each test. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct traced_run {
	int status;       /* exit status, or 128 + signal */
	int wait_status;  /* as waitpid gave it, the core dump flag too */
	char dir[256];    /* private directory for output and reports */
	char *out;        /* everything the program wrote to stdout */
	char *err;        /* and to stderr */
	json_t *report;   /* the last report read, NULL when none was written */
	unsigned reports; /* files named report*.json in dir */
	json_t *all[8];   /* the first eight of them */
};

struct run_options {
	bool preload;             /* LD_PRELOAD libvramtrace.so */
	bool simulate;            /* the simulated device first on the path */
	const char *library_path; /* instead of the simulated device */
	const char *const *env;   /* extra NAME=VALUE entries, NULL-terminated */
	const char *output_name;  /* report file template in the run's directory,
				     default report.json */
};

/* The path of a test program built beside the tests. */
const char *program_path(const char *name);
/* A build path from the environment variable name; fails the test if unset. */
const char *build_path(const char *variable);
/* The path of a Python program of the tests', by its file name. */
const char *python_program(const char *file_name);
/* The line of the file at path that carries "# MARK name"; fails the test
 * if none does. */
int marked_line_in(const char *path, const char *name);

void traced_run(struct traced_run *run, const struct run_options *options, char *const argv[]);
void traced_run_free(struct traced_run *run);

/* The vramtrace tool with args (NULL-terminated, at most 38) under
 * options, or with env added. */
void run_tool_with(struct traced_run *run, char **args, const struct run_options *options);
void run_tool(struct traced_run *run, char **args, const char *const *env);
/* How many times needle stands in text, none overlapping. */
unsigned count_of(const char *text, const char *needle);
/* Removes dir and all below it; a failure fails the test. */
void remove_tree(const char *dir);

/* A fixture report's path (tests/fixtures/name); four may be held at once. */
const char *fixture_path(const char *name);
/* The whole of a file, "" when it cannot be read; free() it. */
char *slurp(const char *path);
/* A fixture report, loaded; fails the test if it cannot be. */
json_t *load_fixture(const char *name);
/* document written to a new file in /tmp and released; its path returned
 * (the caller frees and unlinks it). */
char *written_report(json_t *document);

/* run the named program under the preload on the simulated device. */
void trace_program(struct traced_run *run, const char *program, const char *const *env);

/* A value in the report by path: "devices/0/peak/bytes". Missing or not an
 * integer fails the test. */
int64_t report_int(json_t *report, const char *path);
const char *report_string(json_t *report, const char *path);
json_t *report_at(json_t *report, const char *path);
/* The entry of the array at path whose key field ("kind", "tag") is name;
 * a missing one fails the test. */
json_t *report_entry(json_t *report, const char *path, const char *key, const char *name);
/* The kinds (tags) entry named kind (tag) of owner ("devices/0" or "host"). */
json_t *report_kind(json_t *report, const char *owner, const char *kind);
json_t *report_tag(json_t *report, const char *owner, const char *tag);

/* hostile (programs/hostile.c) in mode with arg, under the preload on the
 * simulated device: what servers, daemons and runtimes do. */
void hostile(struct traced_run *run, const char *mode, const char *arg, const char *const *env);

/* signals (programs/signals.c) in mode with arg and extra, on the
 * simulated device, with the preload or without. */
void run_signals(struct traced_run *run, bool preload, char *mode, char *arg, char *extra);
/* With and without vramtrace: the same status and output; with it, one
 * report with the peak the program holds and the ending it had. */
void same_with_a_report(char *mode, char *arg, char *extra, const char *ended_by, int64_t peak);

/* One program run twice on the simulated device, with vramtrace and
 * without, for its files, output and status to be compared. */
struct both {
	struct traced_run with, without;
};

void run_both(struct both *runs, const char *program, const char *mode, const char *argument,
	      const char *const *env);
void free_both(struct both *runs);
/* The file the program wrote in its run's directory is the same, byte for
 * byte, with vramtrace and without. */
void same_file(const struct both *runs, const char *name);
/* The same status and standard output. */
void same_behaviour(const struct both *runs);
/* Nothing but the report, the program's own files and the captured output:
 * no temporary file left behind. */
void no_leftovers(const struct traced_run *run);

/* program with one argument, with vramtrace and without, the summary on. */
void run_both_with_summary(const char *program, const char *argument, struct traced_run *with,
			   struct traced_run *without);
