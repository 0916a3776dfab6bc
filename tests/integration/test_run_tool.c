/* `vramtrace run` as a user types it: exit codes and signals passed on,
 * --output and VRAMTRACE_OUTPUT, the list of reports in TMPDIR and the
 * line naming the next command. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static long long printed(const char *out, const char *key)
{
	const char *at = strstr(out, key);
	cr_assert(at, "no %s in: %s", key, out);
	return atoll(at + strlen(key));
}

Test(run_tool, simulated_llm_serving_with_labels)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"run", "--simulate=40GiB", "--label", "batch=16", "--label",
			    "dtype=fp16", "--", (char *)build_path("VT_TEST_LLM_SERVING"),
			    "--batch", "16", "--dtype", "fp16", NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(run.report, "%s", run.err);
	json_t *r = run.report;
	cr_assert_str_eq(report_string(r, "run/labels/batch"), "16");
	cr_assert_str_eq(report_string(r, "run/labels/dtype"), "fp16");
	cr_assert_eq(report_int(r, "devices/0/capacity_bytes"), 40ll << 30);
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), printed(run.out, "expected_peak="));
	cr_assert_eq(report_int(r, "host/peak/bytes"), printed(run.out, "pinned="));
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 0);
	cr_assert_str_eq(report_string(r, "run/ended_by"), "exit 0");
	cr_assert_str_eq(report_string(r, "run/command/1"), "--batch");
	traced_run_free(&run);
}

/* The text with each time ("at 0.014 s") read as "at T s", and each
 * "vramtrace run:" line and the line naming the report left out. */
static char *summary_lines(const char *text)
{
	char *out = calloc(1, strlen(text) + 1), *to = out;
	for (const char *line = text; *line;) {
		const char *end = strchrnul(line, '\n');
		bool kept = strncmp(line, "vramtrace: ", 11) == 0 &&
			    strncmp(line, "vramtrace: report written to ", 29) != 0;
		for (const char *at = line; kept && at < end; at++) {
			*to++ = *at;
			if (strncmp(at, " at ", 4) == 0 && at[4] >= '0' && at[4] <= '9') {
				to += sprintf(to, "at T");
				for (at += 4; *at != ' ' && at < end; at++)
					;
				at--;
			}
		}
		if (kept)
			*to++ = '\n';
		line = *end ? end + 1 : end;
	}
	return out;
}

/* The summary README.md shows is what that command prints, line for line. */
Test(run_tool, the_summary_in_the_readme_is_what_run_prints)
{
	char *readme = slurp(fixture_path("../../README.md"));
	const char *command =
		"build/tools/vramtrace run --simulate=24GiB -- build/examples/llm_serving";
	char *block = strstr(readme, command);
	cr_assert(block, "README.md shows no %s", command);
	block = strstr(block, "```\n");
	cr_assert(block);
	block += 4;
	*strstr(block, "```") = '\0';
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"run", "--simulate=24GiB", "--",
			    (char *)build_path("VT_TEST_LLM_SERVING"), NULL},
		 (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	char *shown = summary_lines(block), *printed = summary_lines(run.err);
	cr_assert_str_eq(shown, printed);
	free(shown);
	free(printed);
	traced_run_free(&run);
	free(readme);
}

Test(run_tool, simulated_with_the_cupti_source)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"run", "--simulate", "--sources", "cupti", "--",
			    (char *)build_path("VT_TEST_LLM_SERVING"), NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(run.report, "%s", run.err);
	json_t *sources = report_at(run.report, "tracer/sources");
	cr_assert_eq(json_array_size(sources), 1);
	cr_assert_str_eq(json_string_value(json_array_get(sources, 0)), "cupti");
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"),
		     printed(run.out, "expected_peak="));
	traced_run_free(&run);
}

Test(run_tool, exit_status_and_no_report_message)
{
	struct traced_run run;
	run_tool(&run, (char *[]){"run", "--", (char *)program_path("no_cuda"), NULL}, NULL);
	cr_assert_eq(run.status, 3);
	cr_assert_eq(run.reports, 0);
	cr_assert(strstr(run.err, "vramtrace: no process of the command used CUDA"), "%s", run.err);
	traced_run_free(&run);
}

/* A process that used CUDA and was killed before it could write: the
 * wrapper says how the command ended, not that CUDA went unused. */
Test(run_tool, a_command_killed_before_its_report_is_named_so)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"run", "--simulate", "--", (char *)program_path("signals"), "raise",
			    "9", "main", NULL},
		 NULL);
	cr_assert_eq(run.status, 128 + SIGKILL);
	cr_assert(strstr(run.err, "vramtrace: the command ended by SIGKILL before any report was "
				  "written\n"),
		  "%s", run.err);
	cr_assert_null(strstr(run.err, "used CUDA"), "%s", run.err);
	traced_run_free(&run);
	run_tool(&run,
		 (char *[]){"run", "--simulate", "--", "/bin/sh", "-c", "kill -RTMIN+6 $$", NULL},
		 NULL);
	cr_assert(strstr(run.err, "ended by signal 40 before any report"), "%s", run.err);
	traced_run_free(&run);
}

Test(run_tool, signal_becomes_128_plus_n)
{
	struct traced_run run;
	run_tool(&run, (char *[]){"run", "--", "/bin/sh", "-c", "kill -TERM $$", NULL}, NULL);
	cr_assert_eq(run.status, 128 + 15);
	traced_run_free(&run);
}

Test(run_tool, bad_invocations_exit_2)
{
	static const char *const cases[][4] = {
		{"run", "--bogus", "--", "true"},
		{"run", "--simulate=lots", "--", "true"},
		{"run", "--simulate=1.5", "--", "true"}, /* 1.5 bytes? surely not */
		{"run", "--label", "novalue", "--"},
		{"run", "--sources", "nvml", "--"},
		{"run", "--output=", "--", "true"},
		{"run", NULL},
		{"frobnicate", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct traced_run run;
		run_tool(&run, (char **)cases[i], NULL);
		cr_assert_eq(run.status, 2, "case %zu: %s", i, run.err);
		cr_assert(strstr(run.err, "vramtrace"), "case %zu says nothing", i);
		cr_assert_str_eq(run.out, "", "case %zu printed on stdout", i);
		traced_run_free(&run);
	}
}

Test(run_tool, missing_command_is_127)
{
	struct traced_run run;
	run_tool(&run, (char *[]){"run", "--", "/no/such/program", NULL}, NULL);
	cr_assert_eq(run.status, 127);
	cr_assert(strstr(run.err, "cannot run '/no/such/program'"));
	cr_assert_null(strstr(run.err, "no process"), "it never started");
	traced_run_free(&run);
}

Test(run_tool, help_and_version)
{
	struct traced_run run;
	run_tool(&run, (char *[]){"run", "--help", NULL}, NULL);
	cr_assert_eq(run.status, 0);
	cr_assert(strstr(run.out, "--simulate [CAPACITY]"));
	cr_assert(strstr(run.out, "128+N"));
	traced_run_free(&run);
	run_tool(&run, (char *[]){"--version", NULL}, NULL);
	cr_assert_eq(run.status, 0);
	cr_assert(strncmp(run.out, "vramtrace ", 10) == 0);
	traced_run_free(&run);
}

Test(run_tool, configuration_mistakes_warn_once)
{
	struct traced_run run;
	run_tool(&run, (char *[]){"run", "--simulate", "--", (char *)program_path("oom"), NULL},
		 (const char *const[]){"VRAMTRACE_FROBNICATE=1", "VRAMTRACE_SUMMARY=maybe",
				       "VRAMTRACE_LABEL=novalue", NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.err, "vramtrace: unknown variable VRAMTRACE_FROBNICATE ignored\n"),
		  "%s", run.err);
	cr_assert(strstr(run.err, "vramtrace: VRAMTRACE_SUMMARY='maybe' is not valid"));
	cr_assert(strstr(run.err, "vramtrace: VRAMTRACE_LABEL='novalue' is not valid"));
	cr_assert(run.report);
	cr_assert_eq(json_object_size(report_at(run.report, "run/labels")), 0);
	traced_run_free(&run);
}

Test(run_tool, bad_simulator_setting_is_named)
{
	struct traced_run run;
	run_tool(&run, (char *[]){"run", "--simulate", "--", (char *)program_path("oom"), NULL},
		 (const char *const[]){"VRAMSIM_GRANULARITY=huge", NULL});
	cr_assert_neq(run.status, 0);
	cr_assert(strstr(run.err, "vramsim: VRAMSIM_GRANULARITY='huge' is not valid"), "%s",
		  run.err);
	traced_run_free(&run);
	/* A bare number is a size no reader could be sure of. */
	run_tool(&run, (char *[]){"run", "--simulate", "--", (char *)program_path("oom"), NULL},
		 (const char *const[]){"VRAMSIM_CAPACITY=2", NULL});
	cr_assert_neq(run.status, 0);
	cr_assert(strstr(run.err, "vramsim: VRAMSIM_CAPACITY='2' is not valid"), "%s", run.err);
	traced_run_free(&run);
	/* The same grammar for every VRAMSIM_* size, and the same refusal. */
	run_tool(&run, (char *[]){"run", "--simulate", "--", (char *)program_path("oom"), NULL},
		 (const char *const[]){"VRAMSIM_HIDDEN_BYTES=123456789", NULL});
	cr_assert_neq(run.status, 0);
	cr_assert(strstr(run.err, "vramsim: VRAMSIM_HIDDEN_BYTES='123456789' is not valid"), "%s",
		  run.err);
	traced_run_free(&run);
}

/* VRAMSIM_VERBOSE names each call the simulation does not implement when
 * it is first made, and lists them all again at exit, per library. */
Test(run_tool, verbose_simulator_lists_what_it_lacks_at_exit)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"run", "--simulate", "--", (char *)program_path("not_simulated"), NULL},
		 (const char *const[]){"VRAMSIM_VERBOSE=1", NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert(strstr(run.out, "not_simulated: done"));
	cr_assert(strstr(run.err, "vramsim: libcudart: 1 function called that the simulation does "
				  "not implement: cudaGraphDebugDotPrint\n"),
		  "%s", run.err);
	cr_assert(strstr(run.err, "vramsim: libcuda: 1 function called that the simulation does "
				  "not implement: cuTexRefCreate\n"),
		  "%s", run.err);
	traced_run_free(&run);
	run_tool(&run,
		 (char *[]){"run", "--simulate", "--", (char *)program_path("not_simulated"), NULL},
		 NULL);
	cr_assert_null(strstr(run.err, "vramsim:"), "%s", run.err);
	traced_run_free(&run);
}

/* A program carrying NVIDIA's own runtime gets no device from the
 * simulated driver: the summary says why nothing was recorded. */
Test(run_tool, empty_report_says_why)
{
	if (access(program_path("kernel_launch_static"), X_OK) != 0)
		cr_skip_test("nvcc was not found at build time");
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"run", "--simulate", "--", (char *)program_path("kernel_launch_static"),
			    NULL},
		 (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL});
	cr_assert_eq(run.status, 1, "%s", run.err);
	cr_assert(strstr(run.err, "vramtrace: no GPU memory was allocated: no CUDA driver "
				  "answered this process"),
		  "%s", run.err);
	traced_run_free(&run);
}

Test(run_tool, keeps_what_ld_preload_held)
{
	struct traced_run run;
	run_tool(&run, (char *[]){"run", "--", "/usr/bin/printenv", "LD_PRELOAD", NULL},
		 (const char *const[]){"LD_PRELOAD=libm.so.6", NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	char expected[4096];
	snprintf(expected, sizeof(expected), "%s:libm.so.6\n", build_path("VT_TEST_LIBRARY"));
	cr_assert_str_eq(run.out, expected);
	traced_run_free(&run);
}

Test(run_tool, labels_follow_those_in_the_environment)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"run", "--label", "batch=8", "--", "/usr/bin/printenv",
			    "VRAMTRACE_LABEL", NULL},
		 (const char *const[]){"VRAMTRACE_LABEL=team=infra", NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(run.out, "team=infra,batch=8\n");
	traced_run_free(&run);
}

Test(run_tool, nvtx_ranges_become_tags)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"run", "--simulate", "--", (char *)program_path("nvtx_ranges"), NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(report_string(run.report, "devices/0/tags/0/tag"), "decode");
	traced_run_free(&run);
}

Test(run_tool, another_nvtx_injection_is_kept)
{
	struct traced_run run;
	run_tool(&run, (char *[]){"run", "--", "/usr/bin/printenv", "NVTX_INJECTION64_PATH", NULL},
		 (const char *const[]){"NVTX_INJECTION64_PATH=/opt/nsight/libinjection.so", NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(run.out, "/opt/nsight/libinjection.so\n");
	cr_assert(strstr(run.err, "NVTX_INJECTION64_PATH is already /opt/nsight/libinjection.so"));
	traced_run_free(&run);
}

Test(run_tool, a_signal_to_the_wrapper_reaches_the_command, .timeout = 30)
{
	char dir[] = "/tmp/vramtrace-wrap.XXXXXX", output[300];
	cr_assert(mkdtemp(dir));
	snprintf(output, sizeof(output), "%s/r.json", dir);
	pid_t wrapper = fork();
	if (wrapper == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, STDERR_FILENO);
		execl(build_path("VT_TEST_TOOL"), "vramtrace", "run", "--simulate", "--output",
		      output, "--", program_path("hostile"), "wait", (char *)NULL);
		_exit(127);
	}
	/* The command holds its memory once its report list has a reader:
	 * wait until the command is there, then signal the wrapper alone. */
	char command[400];
	snprintf(command, sizeof(command), "pgrep -P %d -f 'hostile wait' >/dev/null",
		 (int)wrapper);
	for (int i = 0; i < 200 && system(command) != 0; i++)
		usleep(20000);
	usleep(200000);
	kill(wrapper, SIGTERM);
	int status;
	cr_assert_eq(waitpid(wrapper, &status, 0), wrapper);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
		  "the wrapper ends as its command did: %#x", status);
	cr_assert_neq(system(command), 0, "no command left running");
	json_t *report = json_load_file(output, 0, NULL);
	cr_assert(report, "the command wrote its report");
	cr_assert_str_eq(report_string(report, "run/ended_by"), "signal 15");
	cr_assert_eq(report_int(report, "devices/0/peak/bytes"), 64ll << 20);
	json_decref(report);
	unlink(output);
	rmdir(dir);
}

Test(run_tool, a_label_given_twice_keeps_the_later_value)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"run", "--simulate", "--label", "batch=16", "--",
			    (char *)program_path("sequence"), NULL},
		 (const char *const[]){"VRAMTRACE_LABEL=batch=8,dtype=bf16", NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(report_string(run.report, "run/labels/batch"), "16");
	cr_assert_str_eq(report_string(run.report, "run/labels/dtype"), "bf16");
	char command[700];
	snprintf(command, sizeof(command), "%s report %s/report.json > /dev/null",
		 build_path("VT_TEST_TOOL"), run.dir);
	cr_assert_eq(system(command), 0, "the tool reads it");
	traced_run_free(&run);
}

Test(run_tool, escapes_in_labels_are_shown_not_obeyed)
{
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"run", "--simulate", "--", (char *)program_path("sequence"), NULL},
		 (const char *const[]){"VRAMTRACE_LABEL=note=\033[2Jred\nline", NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	char command[700], text[8192];
	snprintf(command, sizeof(command), "%s report %s/report.json", build_path("VT_TEST_TOOL"),
		 run.dir);
	FILE *out = popen(command, "r");
	size_t got = fread(text, 1, sizeof(text) - 1, out);
	text[got] = '\0';
	pclose(out);
	cr_assert(strstr(text, "note=\\x1b[2Jred\\nline"), "%s", text);
	cr_assert_null(strchr(text, '\033'), "no raw escape");
	traced_run_free(&run);
}

/* vramtrace run as sh would see it: an exit status stays one, a signal
 * stays a signal, with no core file. */
static int wrapped_status(const char *script)
{
	pid_t child = fork();
	cr_assert(child >= 0);
	if (child == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, STDERR_FILENO);
		execl(build_path("VT_TEST_TOOL"), "vramtrace", "run", "--", "/bin/sh", "-c", script,
		      (char *)NULL);
		_exit(126);
	}
	int status;
	cr_assert_eq(waitpid(child, &status, 0), child);
	return status;
}

Test(run_tool, run_passes_exit_codes_and_signals_on)
{
	for (int code = 126; code <= 160; code++) {
		char script[32];
		snprintf(script, sizeof(script), "exit %d", code);
		int status = wrapped_status(script);
		cr_assert(WIFEXITED(status), "exit %d became signal %d", code, WTERMSIG(status));
		cr_assert_eq(WEXITSTATUS(status), code);
	}
	int status = wrapped_status("kill -SEGV $$");
	cr_assert(WIFSIGNALED(status));
	cr_assert_eq(WTERMSIG(status), SIGSEGV);
	cr_assert_not(WCOREDUMP(status), "no core file of the wrapper's own");
	status = wrapped_status("kill -TERM $$");
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
}

static void run_sequence(struct traced_run *run, const char *output, bool force,
			 const char *const *env)
{
	struct run_options options = {.env = env};
	run_tool_with(run,
		      (char *[]){"run", "--simulate", "24GiB", "--output", (char *)output,
				 force ? "--force" : "--",
				 force ? "--" : (char *)program_path("sequence"),
				 force ? (char *)program_path("sequence") : NULL, NULL},
		      &options);
}

Test(run_tool, run_output_that_exists_is_refused_unless_forced)
{
	char dir[] = "/tmp/vt-out.XXXXXX", path[64], html[64];
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/b2.json", dir);
	snprintf(html, sizeof(html), "%s/b2.html", dir);
	struct traced_run run;
	run_sequence(&run, path, false, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	/* the next command names this tool by the path it was run by, so that
	 * it runs as printed where vramtrace is not on PATH */
	char expected[400];
	snprintf(expected, sizeof(expected), "/vramtrace report %s --format html -o %s\n", path,
		 html);
	const char *next = strstr(run.err, "vramtrace run: next: ");
	cr_assert(next && strstr(next, expected), "%s", run.err);
	cr_assert_eq(system(next + strlen("vramtrace run: next: ")), 0, "%s", next);
	cr_assert_eq(access(html, F_OK), 0, "the page was written by the command as printed");
	cr_assert_str_eq(run.out, "sequence: pitch=1024\n");
	traced_run_free(&run);
	json_t *first = json_load_file(path, 0, NULL);
	cr_assert(first);
	cr_assert_eq(report_int(first, "devices/0/capacity_bytes"), 24ll << 30,
		     "--simulate took 24GiB as its value");

	run_sequence(&run, path, false, NULL);
	cr_assert_eq(run.status, 2);
	snprintf(expected, sizeof(expected),
		 "vramtrace run: %s exists; give --force to replace it, or a template with %%p "
		 "for a new file per run (see vramtrace run --help)\n",
		 path);
	cr_assert_str_eq(run.err, expected);
	cr_assert_str_eq(run.out, "", "refused before the program started");
	traced_run_free(&run);

	run_sequence(&run, path, true, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	traced_run_free(&run);
	json_t *second = json_load_file(path, 0, NULL);
	cr_assert(second);
	cr_assert_neq(report_int(second, "run/pid"), report_int(first, "run/pid"), "replaced");
	char sibling[64];
	snprintf(sibling, sizeof(sibling), "%s/b2-1.json", dir);
	cr_assert_neq(access(sibling, F_OK), 0, "no b2-1.json beside it");
	json_decref(first);
	json_decref(second);
	remove_tree(dir);
}

/* Each process adds its report's path to run's list ended by a NUL: a
 * line break in the path is one report's name, not two reports. */
Test(run_tool, run_names_one_report_whose_path_holds_a_line_break)
{
	char dir[] = "/tmp/vt-nl.XXXXXX", path[64];
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a\nb.json", dir);
	struct traced_run run;
	run_sequence(&run, path, false, NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(access(path, F_OK), 0, "the report was written");
	cr_assert(strstr(run.err, "vramtrace run: next: ") && strstr(run.err, " report "), "%s",
		  run.err);
	cr_assert_null(strstr(run.err, " merge <"), "one report taken for two: %s", run.err);
	traced_run_free(&run);
	remove_tree(dir);
}

/* A traced script that runs `vramtrace run` again: the inner run kept its
 * own list of reports, and the outer one said no process of the command
 * used CUDA, naming no report. Both name the one the program wrote. */
Test(run_tool, a_run_inside_a_run_names_the_inner_report)
{
	char dir[] = "/tmp/vt-nested.XXXXXX", outer[64], inner[64];
	cr_assert(mkdtemp(dir));
	snprintf(outer, sizeof(outer), "%s/outer.json", dir);
	snprintf(inner, sizeof(inner), "%s/inner.json", dir);
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"run", "--simulate", "-o", outer, "--",
			    (char *)build_path("VT_TEST_TOOL"), "run", "--simulate", "-o", inner,
			    "--", (char *)program_path("sequence"), NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(run.out, "sequence: pitch=1024\n");
	cr_assert_eq(access(outer, F_OK), -1, "no second report");
	cr_assert_null(strstr(run.err, "no process of the command used CUDA"), "%s", run.err);
	char next[256];
	snprintf(next, sizeof(next),
		 "vramtrace run: next: %s report %s --format html -o %s/inner.html\n",
		 build_path("VT_TEST_TOOL"), inner, dir);
	const char *first = strstr(run.err, next);
	cr_assert(first && strstr(first + 1, next), "each run names the report: %s", run.err);
	json_t *report = json_load_file(inner, 0, NULL);
	cr_assert(report);
	cr_assert_eq(report_int(report, "devices/0/peak/bytes"), 629145600) /* 600 MiB */;
	json_decref(report);
	traced_run_free(&run);
	remove_tree(dir);
}

/* The outer run's --output reaches the inner runs as VRAMTRACE_OUTPUT: a
 * script running `vramtrace run` twice failed the second time (exit 2,
 * "r.json exists; give --force"), as it never does without the outer
 * run. Each report now gets its own name, as two processes' do. */
Test(run_tool, a_script_running_run_twice_inside_a_run_keeps_both_reports)
{
	char dir[] = "/tmp/vt-nested.XXXXXX", outer[64], script[1024], path[96];
	cr_assert(mkdtemp(dir));
	snprintf(outer, sizeof(outer), "%s/r.json", dir);
	snprintf(script, sizeof(script), "%1$s run -- %2$s && %1$s run -- %2$s",
		 build_path("VT_TEST_TOOL"), program_path("sequence"));
	struct traced_run run;
	run_tool(&run,
		 (char *[]){"run", "--simulate", "-o", outer, "--", "/bin/sh", "-c", script, NULL},
		 NULL);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(run.out, "sequence: pitch=1024\nsequence: pitch=1024\n");
	cr_assert_null(strstr(run.err, "exists"), "%s", run.err);
	cr_assert(strstr(run.err, "merge <the 2 reports> -o merged.json\n"), "%s", run.err);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), i ? "%s/r-1.json" : "%s/r.json", dir);
		json_t *report = json_load_file(path, 0, NULL);
		cr_assert(report, "%s: %s", path, run.err);
		cr_assert_eq(report_int(report, "devices/0/peak/bytes"), 629145600);
		json_decref(report);
	}
	traced_run_free(&run);
	remove_tree(dir);
}

/* The list of reports goes in TMPDIR, or beside the reports when TMPDIR
 * (or /tmp) cannot be written. */
Test(run_tool, run_without_a_writable_tmpdir)
{
	char dir[] = "/tmp/vt-tmp.XXXXXX", path[64], readonly[64];
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	snprintf(readonly, sizeof(readonly), "TMPDIR=%s/none", dir);
	struct traced_run run;
	run_sequence(&run, path, false, (const char *const[]){readonly, NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(access(path, F_OK), 0, "the report was written");
	cr_assert(strstr(run.err, "vramtrace run: next: ") && strstr(run.err, " report "), "%s",
		  run.err);
	traced_run_free(&run);
	char command[200];
	snprintf(command, sizeof(command), "ls %s | grep -c vramtrace-run", dir);
	cr_assert_neq(system(command), 0, "the list was removed");
	remove_tree(dir);
}

Test(run_tool, run_without_a_driver_says_so)
{
	void *driver = dlopen("libcuda.so.1", RTLD_LAZY);
	if (driver)
		cr_skip_test("a CUDA driver is installed here");
	struct traced_run run;
	struct run_options options = {0};
	run_tool_with(&run, (char *[]){"run", "--", (char *)program_path("sequence"), NULL},
		      &options);
	cr_assert_str_eq(run.err + strlen(run.err) - 94,
			 "vramtrace run: no CUDA driver found (libcuda.so.1), so no report was "
			 "written; try --simulate\n");
	traced_run_free(&run);
}

/* VRAMTRACE_OUTPUT naming a file that exists is refused as --output is. */
Test(run_tool, run_output_from_the_environment_is_checked_too)
{
	char dir[] = "/tmp/vt-env.XXXXXX", path[64], variable[96];
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/old.json", dir);
	snprintf(variable, sizeof(variable), "VRAMTRACE_OUTPUT=%s", path);
	FILE *file = fopen(path, "w");
	fputs("old", file);
	fclose(file);
	struct traced_run run;
	struct run_options options = {.env = (const char *const[]){variable, NULL}};
	run_tool_with(&run,
		      (char *[]){"run", "--simulate", "--", (char *)program_path("sequence"), NULL},
		      &options);
	cr_assert_eq(run.status, 2);
	cr_assert_str_eq(run.out, "");
	traced_run_free(&run);
	char text[8] = "";
	file = fopen(path, "r");
	cr_assert(fgets(text, sizeof(text), file));
	fclose(file);
	cr_assert_str_eq(text, "old", "left as it was");
	remove_tree(dir);
}

/* tool (the build's vramtrace) copied into top/tools with its library in
 * top/lib, the simulated device linked as top/tests: the layout it finds
 * them in. */
static void copy_build(const char *tool, const char *top)
{
	char build[512], command[2048];
	snprintf(build, sizeof(build), "%s", tool);
	*strrchr(build, '/') = '\0';
	*strrchr(build, '/') = '\0';
	snprintf(command, sizeof(command),
		 "mkdir -p '%s/tools' '%s/lib' && cp '%s' '%s/tools/' && "
		 "cp '%s/lib/libvramtrace.so' '%s/lib/' && ln -s '%s/tests' '%s/tests'",
		 top, top, tool, top, build, top, build, top);
	cr_assert_eq(system(command), 0, "%s", command);
}

/* The loader splits LD_PRELOAD at spaces: vramtrace built under a path with
 * one ran the command untraced ("no process of the command used CUDA"). */
Test(run_tool, run_preloads_from_a_path_with_a_space)
{
	char dir[] = "/tmp/vt-space.XXXXXX", top[128], tool[160], path[160];
	cr_assert(mkdtemp(dir));
	snprintf(top, sizeof(top), "%s/my builds", dir);
	copy_build(build_path("VT_TEST_TOOL"), top);
	snprintf(tool, sizeof(tool), "%s/tools/vramtrace", top);
	snprintf(path, sizeof(path), "%s/r.json", dir);
	struct run_options options = {0};
	struct traced_run run;
	traced_run(&run, &options,
		   (char *[]){tool, "run", "--simulate", "--output", path, "--",
			      (char *)program_path("sequence"), NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_null(strstr(run.err, "cannot be preloaded"), "%s", run.err);
	cr_assert_eq(access(path, F_OK), 0, "the report was written: %s", run.err);
	traced_run_free(&run);

	/* a colon has no way in: said, and the command not run untraced */
	snprintf(top, sizeof(top), "%s/a:b", dir);
	copy_build(build_path("VT_TEST_TOOL"), top);
	snprintf(tool, sizeof(tool), "%s/tools/vramtrace", top);
	traced_run(&run, &options,
		   (char *[]){tool, "run", "--simulate", "--", (char *)program_path("sequence"),
			      NULL});
	cr_assert_eq(run.status, 2, "%s", run.err);
	cr_assert(strstr(run.err, "cannot be preloaded: the dynamic loader splits"), "%s", run.err);
	cr_assert_str_eq(run.out, "", "the command did not run");
	traced_run_free(&run);
	remove_tree(dir);
}
