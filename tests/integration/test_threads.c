/* Threads: exact totals with 8 and with 16 threads allocating at once (on
 * two devices, tags and dumps too), a ThreadSanitizer program's threads,
 * the static TLS and the stack a thread pays, and 16 KiB thread stacks
 * (tests/integration/programs/threads.c, stress.c, tsan.c, limits.c). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

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

Test(threads, eight_threads_allocating_at_once_give_exact_totals, .timeout = 240)
{
	struct traced_run run;
	trace_program(&run, "threads", NULL);
	json_t *r = run.report;
	const int64_t pairs = 100000, kept = 36 * MiB, per_pair_sum = 4096 * 36;
	cr_assert_eq(report_int(r, "devices/0/allocations"), 8 * pairs + 8);
	cr_assert_eq(report_int(r, "devices/0/frees"), 8 * pairs);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_allocations"), 8);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), kept);
	cr_assert_eq(report_int(r, "devices/0/bytes_allocated"), kept + pairs * per_pair_sum);
	cr_assert_eq(report_int(r, "tracer/events"), 16 * pairs + 8);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
	int64_t peak = report_int(r, "devices/0/peak/bytes");
	cr_assert(peak >= kept && peak <= kept + per_pair_sum, "peak %lld", (long long)peak);
	traced_run_free(&run);
}

Test(threads, sixteen_threads_on_two_devices_give_exact_totals, .timeout = 240)
{
	struct traced_run run;
	char dump[600];
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMSIM_DEVICES=2", NULL},
	};
	snprintf(dump, sizeof(dump), "/tmp/vramtrace-stress-dump.%d.%%p.json", (int)getpid());
	traced_run(&run, &options, (char *[]){(char *)program_path("stress"), dump, NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	json_t *r = run.report;
	int64_t allocations =
		report_int(r, "devices/0/allocations") + report_int(r, "devices/1/allocations");
	cr_assert_eq(allocations, 16 * 5000 + 16);
	cr_assert_eq(report_int(r, "devices/0/frees") + report_int(r, "devices/1/frees"),
		     16 * 5000);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 64 * MiB, "1+3+...+15 MiB");
	cr_assert_eq(report_int(r, "devices/1/live_at_exit_bytes"), 72 * MiB, "2+4+...+16 MiB");
	cr_assert_eq(report_int(r, "tracer/events"), 2 * 16 * 5000 + 16);
	cr_assert_eq(report_int(r, "tracer/unknown_frees"), 0);
	size_t i;
	json_t *tag;
	int64_t thread_bytes = 0;
	for (int d = 0; d < 2; d++) {
		char path[32];
		snprintf(path, sizeof(path), "devices/%d/tags", d);
		json_array_foreach (report_at(r, path), i, tag) {
			const char *name = json_string_value(json_object_get(tag, "tag"));
			int64_t live =
				json_integer_value(json_object_get(tag, "live_at_exit_bytes"));
			if (strncmp(name, "thread", 6) == 0) {
				cr_assert_eq(live, (atoi(name + 6) + 1) * MiB, "%s", name);
				thread_bytes += live;
			} else {
				cr_assert_eq(live, 0, "%s", name);
			}
		}
	}
	cr_assert_eq(thread_bytes, 136 * MiB);
	char command[700];
	snprintf(command, sizeof(command),
		 "ls /tmp/vramtrace-stress-dump.%d.* >/dev/null && "
		 "rm -f /tmp/vramtrace-stress-dump.%d.*",
		 (int)getpid(), (int)getpid());
	cr_assert_eq(system(command), 0, "the dumps were written");
	traced_run_free(&run);
}

Test(threads, threads_of_a_thread_sanitizer_program_exit_cleanly)
{
	if (access(program_path("tsan"), X_OK) != 0)
		cr_skip_test("no -fsanitize=thread here");
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true};
	traced_run(&run, &options, (char *[]){(char *)program_path("tsan"), NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 64 * MiB);
	cr_assert_eq(report_int(run.report, "devices/0/allocations"), 5);
	traced_run_free(&run);
}

Test(threads, a_thread_pays_little_static_tls_and_a_hook_little_stack)
{
	size_t tls = static_tls_bytes();
	cr_assert_lt(tls, 1024, "%zu bytes of static TLS", tls);
	struct both runs;
	/* No sampler: the free after each new peak reads the device itself. */
	run_both(&runs, "limits", "stack_use", NULL,
		 (const char *const[]){"VRAMTRACE_SAMPLE_MS=0", NULL});
	same_behaviour(&runs);
	/* glibc carves a thread's static TLS out of the stack it is given. */
	long hook = stack_used(&runs.with) - stack_used(&runs.without) - (long)tls;
	cr_assert_lt(hook, 2048, "an allocation and a free took %ld bytes more stack", hook);
	cr_assert_eq(report_int(runs.with.report, "devices/0/allocations"), 3);
	free_both(&runs);
}

Test(threads, small_thread_stacks_work_as_without)
{
	struct both runs;
	run_both(&runs, "limits", "small_stacks", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_str_eq(runs.with.out,
			 "16 KiB thread: ran\n24 KiB thread: ran\n32 KiB thread: ran\n");
	cr_assert_eq(report_int(runs.with.report, "devices/0/allocations"), 3);
	free_both(&runs);
}

Test(threads, a_thread_cancelled_before_its_first_cuda_call_returns_from_it, .timeout = 60)
{
	struct both runs;
	run_both(&runs, "hostile", "cancel_first_call", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_str_eq(runs.with.out, "returned 0\ncancelled 1\n", "%s", runs.with.err);
	cr_assert_eq(report_int(runs.with.report, "devices/0/peak/bytes"), 80 * MiB);
	cr_assert_eq(report_int(runs.with.report, "devices/0/allocations"), 2);
	free_both(&runs);
}

/* The report and the stack naming run on a stack of the tracer's, never
 * on what a small thread of the program's has left. */
Test(threads, a_16_kib_thread_may_start_cuda_dump_and_exit)
{
	struct both runs;
	run_both(&runs, "limits", "tiny_thread", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_eq(runs.with.status, 4, "%s", runs.with.err);
	cr_assert_str_eq(runs.with.out, "exit from a 16 KiB thread\n");
	cr_assert_eq(runs.with.reports, 1);
	char dump[320];
	snprintf(dump, sizeof(dump), "%s/dump.json", runs.with.dir);
	cr_assert(access(dump, R_OK) == 0, "the dump is written");
	cr_assert_str_eq(report_string(runs.with.report, "run/ended_by"), "exit 4");
	cr_assert_eq(report_int(runs.with.report, "devices/0/peak/bytes"), 3 * MiB);
	free_both(&runs);
}

Test(threads, a_low_rlimit_stack_leaves_the_exit_and_its_report)
{
	struct both runs;
	run_both(&runs, "limits", "low_stack_limit", NULL, NULL);
	same_behaviour(&runs);
	cr_assert_eq(runs.with.status, 5, "%s", runs.with.err);
	cr_assert_str_eq(runs.with.out, "allocated under a 64 KiB stack limit\n");
	cr_assert_eq(runs.with.reports, 1);
	cr_assert_eq(report_int(runs.with.report, "devices/0/peak/bytes"), 8 * MiB);
	no_leftovers(&runs.with);
	free_both(&runs);
}
