/* The program's descriptors, limits, exec and dlsym scope stay its own:
 * each scenario (tests/integration/programs/limits.c, scope.c) runs with
 * and without vramtrace, and the program's files, output and status must
 * be the same, byte for byte. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

struct both {
	struct traced_run with, without;
};

static void run_both(struct both *runs, const char *program, const char *mode, const char *argument,
		     const char *const *env)
{
	struct run_options options = {.preload = true, .simulate = true, .env = env};
	char *argv[] = {(char *)program_path(program), (char *)mode, (char *)argument, NULL};
	traced_run(&runs->with, &options, argv);
	options.preload = false;
	traced_run(&runs->without, &options, argv);
}

static void free_both(struct both *runs)
{
	traced_run_free(&runs->with);
	traced_run_free(&runs->without);
}

/* The whole of a file the program wrote in its run's directory; NULL when
 * there is none. */
static char *slurp(const struct traced_run *run, const char *name, size_t *length)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", run->dir, name);
	FILE *file = fopen(path, "re");
	if (!file)
		return NULL;
	char *text = NULL;
	FILE *buffer = open_memstream(&text, length);
	char chunk[4096];
	for (size_t got; (got = fread(chunk, 1, sizeof(chunk), file)) > 0;)
		fwrite(chunk, 1, got, buffer);
	fclose(buffer);
	fclose(file);
	return text;
}

static void same_file(const struct both *runs, const char *name)
{
	size_t with_length = 0, without_length = 0;
	char *with = slurp(&runs->with, name, &with_length);
	char *without = slurp(&runs->without, name, &without_length);
	cr_assert(without, "the program wrote %s", name);
	cr_assert(with, "%s is missing under vramtrace", name);
	cr_assert_eq(with_length, without_length, "%s: %zu bytes, %zu without vramtrace", name,
		     with_length, without_length);
	cr_assert(memcmp(with, without, with_length) == 0, "%s differs", name);
	free(with);
	free(without);
}

static void same_behaviour(const struct both *runs)
{
	cr_assert_eq(runs->with.status, runs->without.status, "%s", runs->with.err);
	cr_assert_str_eq(runs->with.out, runs->without.out);
}

/* Nothing but the report, the program's own files and the captured output:
 * no temporary file left behind. */
static void no_leftovers(const struct traced_run *run)
{
	DIR *dir = opendir(run->dir);
	cr_assert(dir);
	for (struct dirent *entry; (entry = readdir(dir));)
		cr_assert(!strstr(entry->d_name, ".tmp"), "%s was left behind", entry->d_name);
	closedir(dir);
}

Test(limits, descriptors_the_program_reopened_are_never_the_tracers)
{
	struct both runs;
	run_both(&runs, "limits", "closed_descriptors", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_str_eq(runs.with.out, "descriptors 3 4 5\n", "every read and write was whole");
	same_file(&runs, "input");
	same_file(&runs, "output");
	same_file(&runs, "log");
	cr_assert_eq(report_int(runs.with.report, "devices/0/allocations"), 33);
	free_both(&runs);
}

Test(limits, under_rlimit_nofile_the_tracer_gives_way)
{
	struct both runs;
	run_both(&runs, "limits", "few_descriptors", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_str_eq(runs.with.out, "opened 3 4 (ok)\n");
	same_file(&runs, "first");
	same_file(&runs, "second");
	/* The program holds all it may open: the report cannot be, and says so
	 * in one line. */
	char expected[600];
	snprintf(expected, sizeof(expected),
		 "vramtrace: cannot write the report to %s/report.json: Too many open files; no "
		 "report written\n",
		 runs.with.dir);
	/* The control endpoint, whose socket the program closed with the rest,
	 * may say so too. */
	const char *line = strstr(runs.with.err, expected);
	cr_assert(line && strcmp(line, expected) == 0, "%s", runs.with.err);
	static const char control[] = "vramtrace: the program closed the control socket's "
				      "descriptor; the control endpoint is off\n";
	size_t before = (size_t)(line - runs.with.err);
	cr_assert(before == 0 || (before == strlen(control) &&
				  strncmp(runs.with.err, control, before) == 0),
		  "%s", runs.with.err);
	cr_assert_eq(runs.with.reports, 0);
	no_leftovers(&runs.with);
	free_both(&runs);
}

Test(limits, a_report_past_rlimit_fsize_is_the_tracers_failure)
{
	struct both runs;
	run_both(&runs, "limits", "small_files", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_eq(runs.with.status, 0, "not killed by SIGXFSZ");
	cr_assert_str_eq(runs.with.out, "done\n");
	same_file(&runs, "data");
	char expected[600];
	snprintf(expected, sizeof(expected),
		 "vramtrace: cannot write the report to %s/report.json: File too large; no report "
		 "written\n",
		 runs.with.dir);
	cr_assert_str_eq(runs.with.err, expected);
	cr_assert_eq(runs.with.reports, 0);
	no_leftovers(&runs.with);
	free_both(&runs);
}

Test(limits, exec_takes_any_number_of_arguments)
{
	static const char *const forms[] = {"execl", "execlp", "execle"};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct both runs;
		run_both(&runs, "limits", "many_arguments", forms[i], NULL);
		same_behaviour(&runs);
		char expected[128];
		snprintf(expected, sizeof(expected), "5003 arguments, the last 'last', from %s\n",
			 i == 2 ? "execle" : "a plain exec");
		cr_assert_str_eq(runs.with.out, expected, "%s", forms[i]);
		cr_assert_eq(runs.with.reports, 1, "%s", forms[i]);
		cr_assert_str_eq(report_string(runs.with.report, "run/ended_by"), "exec");
		cr_assert_eq(report_int(runs.with.report, "devices/0/peak/bytes"), MiB);
		free_both(&runs);
	}
}

Test(limits, exec_with_the_summary_leaves_the_programs_buffers_alone)
{
	struct both runs;
	run_both(&runs, "limits", "exec_unflushed", NULL,
		 (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL});
	same_behaviour(&runs);
	cr_assert_str_eq(runs.with.out, "2 arguments, the last 'count', from a plain exec\n",
			 "what was never flushed is lost at exec, as without vramtrace");
	cr_assert(strstr(runs.with.err, "vramtrace: report written to"), "%s", runs.with.err);
	free_both(&runs);
}

Test(limits, dlsym_looks_up_in_the_callers_scope_and_cuda_is_absent_until_loaded)
{
	struct both runs;
	run_both(&runs, "scope", NULL, NULL, NULL);
	same_behaviour(&runs);
	cr_assert_eq(runs.with.status, 0, "%s", runs.with.err);
	const char *out = runs.with.out;
	cr_assert(strstr(out, "without CUDA: cudaMalloc absent, through the program's handle "
			      "absent\n"),
		  "%s", out);
	cr_assert(strstr(out, "without CUDA: cuMemAlloc_v2 absent, through the program's "
			      "handle absent\n"));
	cr_assert(strstr(out, "outer: scope_inner_value = 7\n"), "a local dependency is seen");
	cr_assert(strstr(out, "outer: cu_scope_inner_value = 11\n"));
	cr_assert(strstr(out, "with the driver: cudaMalloc absent"));
	cr_assert(strstr(out, "with the driver: cuMemAlloc_v2 found"));
	cr_assert(strstr(out, "with the runtime: cudaMalloc found"));
	cr_assert(!strstr(out, "no dlerror"), "every NULL comes with its dlerror");
	cr_assert_eq(runs.with.reports, 0, "no CUDA call was made");
	free_both(&runs);
}

/* The static TLS vramtrace adds to every thread of the program: its
 * PT_TLS segment, read from the library file. */
static size_t static_tls_bytes(void)
{
	FILE *file = fopen(build_path("VT_TEST_LIBRARY"), "rb");
	cr_assert(file);
	Elf64_Ehdr header;
	cr_assert_eq(fread(&header, sizeof(header), 1, file), 1);
	size_t bytes = 0;
	for (unsigned i = 0; i < header.e_phnum; i++) {
		Elf64_Phdr segment;
		fseek(file, (long)(header.e_phoff + i * header.e_phentsize), SEEK_SET);
		cr_assert_eq(fread(&segment, sizeof(segment), 1, file), 1);
		if (segment.p_type == PT_TLS)
			bytes = segment.p_memsz;
	}
	fclose(file);
	return bytes;
}

static long stack_used(const struct traced_run *run)
{
	const char *line = strstr(run->err, "limits: round 1 used ");
	cr_assert(line, "%s", run->err);
	return strtol(line + strlen("limits: round 1 used "), NULL, 10);
}

Test(limits, a_thread_pays_little_static_tls_and_a_hook_little_stack)
{
	size_t tls = static_tls_bytes();
	cr_assert_lt(tls, 1024, "%zu bytes of static TLS", tls);
	struct both runs;
	run_both(&runs, "limits", "stack_use", NULL, NULL);
	same_behaviour(&runs);
	/* glibc carves a thread's static TLS out of the stack it is given. */
	long hook = stack_used(&runs.with) - stack_used(&runs.without) - (long)tls;
	cr_assert_lt(hook, 2048, "an allocation and a free took %ld bytes more stack", hook);
	cr_assert_eq(report_int(runs.with.report, "devices/0/allocations"), 3);
	free_both(&runs);
}

Test(limits, small_thread_stacks_work_as_without)
{
	struct both runs;
	run_both(&runs, "limits", "small_stacks", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_str_eq(runs.with.out,
			 "16 KiB thread: ran\n24 KiB thread: ran\n32 KiB thread: ran\n");
	cr_assert_eq(report_int(runs.with.report, "devices/0/allocations"), 3);
	free_both(&runs);
}

static unsigned count_lines(const char *text)
{
	unsigned lines = 0;
	for (const char *c = text; *c; c++)
		lines += *c == '\n';
	return lines;
}

/* malloc fails after N more calls once main returns, for N across every
 * allocation the exit report makes (libdw's and ld.so's included): the
 * program's status and output stay its own, a report is whole or absent,
 * and the tracer says so in one line at most. */
Test(limits, host_memory_running_out_at_exit_is_the_tracers_failure, .timeout = 240)
{
	for (int after = 0; after <= 600; after += 3) {
		char text[16];
		snprintf(text, sizeof(text), "%d", after);
		struct both runs;
		run_both(&runs, "malloc_fails", text, "5", NULL);
		same_behaviour(&runs);
		cr_assert_eq(runs.with.status, 5, "after %d: %s", after, runs.with.err);
		cr_assert_str_eq(runs.with.out, "leaving with 5\n");
		cr_assert_leq(count_lines(runs.with.err), 1, "after %d: %s", after, runs.with.err);
		cr_assert(!runs.with.err[0] || strncmp(runs.with.err, "vramtrace: ", 11) == 0,
			  "after %d: %s", after, runs.with.err);
		no_leftovers(&runs.with);
		if (runs.with.reports)
			cr_assert_eq(report_int(runs.with.report, "devices/0/peak/bytes"),
				     10 * MiB);
		free_both(&runs);
	}
}
