/* Python frames: the line of the model that allocated, from python_frames.py
 * run by each CPython here (python3 on PATH, with libpython; Debian's
 * /usr/bin/python3, the interpreter linked into the executable). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define MiB (1024ll * 1024ll)

static const char *script(void)
{
	return python_program("python_frames.py");
}

static int marked_line(const char *name)
{
	return marked_line_in(script(), name);
}

static void run_python(struct traced_run *run, const char *python, const char *const *env)
{
	struct run_options options = {.preload = true, .simulate = true, .env = env};
	traced_run(run, &options, (char *[]){(char *)python, (char *)script(), NULL});
	cr_assert_eq(run->status, 0, "%s %s", run->out, run->err);
}

/* The frames of the stack holding bytes at the peak, resolved. */
static json_t *stack_of(json_t *report, int64_t bytes)
{
	json_t *stacks = report_at(report, "devices/0/stacks");
	size_t i, f;
	json_t *stack, *frames, *index;
	json_array_foreach (stacks, i, stack) {
		if (json_integer_value(json_object_get(stack, "at_peak_bytes")) != bytes)
			continue;
		int64_t id = json_integer_value(json_object_get(stack, "id"));
		json_array_foreach (report_at(report, "stack_frames"), f, frames) {
			if (json_integer_value(json_object_get(frames, "id")) != id)
				continue;
			json_t *resolved = json_array();
			size_t k;
			json_array_foreach (json_object_get(frames, "frames"), k, index)
				json_array_append(
					resolved,
					json_array_get(report_at(report, "frames"),
						       (size_t)json_integer_value(index)));
			json_object_set_new(frames, "resolved_for_test", resolved);
			return resolved;
		}
	}
	cr_assert_fail("no stack holds %lld bytes", (long long)bytes);
	return NULL;
}

/* The position of the first Python frame of function at line, or -1. */
static int find(json_t *frames, const char *function, int line)
{
	size_t i;
	json_t *frame;
	json_array_foreach (frames, i, frame) {
		if (!json_is_true(json_object_get(frame, "python")))
			continue;
		const char *name = json_string_value(json_object_get(frame, "function"));
		const char *file = json_string_value(json_object_get(frame, "file"));
		if (name && strcmp(name, function) == 0 && file &&
		    strstr(file, "python_frames.py") &&
		    json_integer_value(json_object_get(frame, "line")) == line)
			return (int)i;
	}
	return -1;
}

static unsigned python_count(json_t *frames)
{
	unsigned count = 0;
	size_t i;
	json_t *frame;
	json_array_foreach (frames, i, frame)
		count += json_is_true(json_object_get(frame, "python"));
	return count;
}

static void check_frames(const char *python)
{
	if (access(python, X_OK) != 0)
		cr_skip_test("no %s here", python);
	struct traced_run run;
	run_python(&run, python, (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL});
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 124 * MiB);
	/* ctypes finds cudaMalloc on libcudart's own handle: still the
	 * runtime's call, named as the program made it. */
	cr_assert_str_eq(report_string(r, "devices/0/peak/api"), "cudaMalloc");
	cr_assert_str_eq(report_string(r, "devices/0/peak/driver_api"), "cuMemAlloc_v2");
	cr_assert_eq(json_array_size(report_at(r, "devices/0/stacks")), 5,
		     "five lines, five stacks");
	int allocate = marked_line("allocate");
	/* GIL released (CDLL), from a function called at module level. */
	json_t *weights = stack_of(r, 64 * MiB);
	int inner = find(weights, "allocate", allocate);
	int caller = find(weights, "load_weights", marked_line("load_weights"));
	int module = find(weights, "<module>", marked_line("main_weights"));
	cr_assert(inner >= 0 && caller > inner && module > caller, "%d %d %d", inner, caller,
		  module);
	/* GIL held (PyDLL). */
	cr_assert_geq(find(stack_of(r, 32 * MiB), "grow_cache", marked_line("grow_cache")), 0);
	/* Another thread. */
	cr_assert_geq(find(stack_of(r, 16 * MiB), "worker", marked_line("worker")), 0);
	/* All 40 frames of the recursion, and the rest. */
	json_t *deep = stack_of(r, 8 * MiB);
	cr_assert_geq(find(deep, "recurse", marked_line("recurse_leaf")), 0);
	unsigned recursions = 0;
	size_t i;
	json_t *frame;
	json_array_foreach (deep, i, frame)
		recursions += json_is_true(json_object_get(frame, "python")) &&
			      strcmp(json_string_value(json_object_get(frame, "function")),
				     "recurse") == 0;
	cr_assert_eq(recursions, 40);
	/* A method, by its qualified name. */
	cr_assert_geq(find(stack_of(r, 4 * MiB), "Model.build", marked_line("build")), 0);
	/* The summary names the line. */
	char line[64];
	snprintf(line, sizeof(line), "load_weights (python_frames.py:%d)",
		 marked_line("load_weights"));
	cr_assert(strstr(run.err, line), "%s", run.err);
	traced_run_free(&run);
}

Test(python, frames_with_libpython)
{
	check_frames(build_path("VT_TEST_PYTHON"));
}

Test(python, frames_with_the_interpreter_in_the_executable)
{
	check_frames("/usr/bin/python3");
}

Test(python, off_and_depth_limits)
{
	struct traced_run run;
	run_python(&run, build_path("VT_TEST_PYTHON"),
		   (const char *const[]){"VRAMTRACE_PYTHON=0", NULL});
	cr_assert_eq(python_count(report_at(run.report, "frames")), 0);
	cr_assert_lt(json_array_size(report_at(run.report, "devices/0/stacks")), 5,
		     "native stacks alone cannot tell the lines apart");
	traced_run_free(&run);
	run_python(&run, build_path("VT_TEST_PYTHON"),
		   (const char *const[]){"VRAMTRACE_PYTHON_DEPTH=5", NULL});
	cr_assert_eq(python_count(stack_of(run.report, 8 * MiB)), 5);
	cr_assert_geq(find(stack_of(run.report, 8 * MiB), "allocate", marked_line("allocate")), 0,
		      "the innermost are kept");
	traced_run_free(&run);
}

/* Module rules name the owner from Python files and qualified names. */
Test(python, rules_match_python_frames)
{
	struct traced_run run;
	run_python(&run, build_path("VT_TEST_PYTHON"),
		   (const char *const[]){
			   "VRAMTRACE_RULES=*.recurse=deep;Model.*=model;*.load_weights=weights",
			   NULL});
	json_t *tags = report_at(run.report, "devices/0/tags");
	size_t i;
	json_t *tag;
	int64_t deep = 0, model = 0, weights = 0;
	json_array_foreach (tags, i, tag) {
		const char *name = json_string_value(json_object_get(tag, "tag"));
		int64_t bytes = json_integer_value(json_object_get(tag, "at_peak_bytes"));
		deep += strcmp(name, "deep") == 0 ? bytes : 0;
		model += strcmp(name, "model") == 0 ? bytes : 0;
		weights += strcmp(name, "weights") == 0 ? bytes : 0;
	}
	cr_assert_eq(deep, 8 * MiB);
	cr_assert_eq(model, 4 * MiB);
	cr_assert_eq(weights, 64 * MiB);
	traced_run_free(&run);
}

static void gate_file(char *path, size_t size)
{
	snprintf(path, size, "%s", script());
	snprintf(strrchr(path, '/') + 1, 64, "pytest_gate.py");
}

/* @pytest.mark.limit_vram under `vramtrace run`, with Debian's pytest: the
 * plugin loads with no -p, the failure names the test's own line first,
 * and a marker without a size says so. */
Test(python, the_pytest_gate)
{
	if (system("/usr/bin/python3 -c 'import pytest' 2>/dev/null") != 0)
		cr_skip_test("no pytest for /usr/bin/python3 (python3-pytest)");
	char test_file[600];
	gate_file(test_file, sizeof(test_file));
	struct traced_run run;
	struct run_options options = {.env = (const char *const[]){"VRAMTRACE_SUMMARY=0", NULL}};
	traced_run(&run, &options,
		   (char *[]){(char *)build_path("VT_TEST_TOOL"), "run", "--simulate", "--",
			      "/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider",
			      test_file, NULL});
	cr_assert_eq(run.status, 1, "two tests fail: %s %s", run.out, run.err);
	cr_assert(strstr(run.out, "2 failed, 1 passed"), "%s", run.out);
	cr_assert(strstr(run.out, "test_over_the_limit at pytest_gate.py:23: device memory peaked "
				  "at 128.00 MiB (134217728 bytes), over the limit of 64.00 MiB "
				  "(67108864 bytes), most of it allocated at allocate "
				  "(pytest_gate.py:12)"),
		  "%s", run.out);
	cr_assert(strstr(run.out, "@pytest.mark.limit_vram needs a size, such as "
				  "@pytest.mark.limit_vram(\"24GiB\")"),
		  "%s", run.out);
	cr_assert_null(strstr(run.out, "KeyError"), "%s", run.out);
	traced_run_free(&run);
}

/* The marker's message says sizes as the tools do: 1048575 bytes were
 * "1024.00 KiB", not 1.00 MiB. */
Test(python, the_pytest_gate_says_sizes_as_the_tools_do)
{
	if (system("/usr/bin/python3 -c 'import pytest' 2>/dev/null") != 0)
		cr_skip_test("no pytest for /usr/bin/python3 (python3-pytest)");
	char python_path[700];
	snprintf(python_path, sizeof(python_path), "PYTHONPATH=%s",
		 build_path("VT_TEST_PYTHON_DIR"));
	struct traced_run run;
	struct run_options options = {.env = (const char *const[]){python_path, NULL}};
	traced_run(
		&run, &options,
		(char *[]){"/usr/bin/python3", "-c",
			   "from vramtrace.pytest import _human as h\n"
			   "print([h(n) for n in (0, 1023, 1048570, 1048575, 2**30 - 1, 3 << 29)])",
			   NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(run.out, "['0 B', '1023 B', '1023.99 KiB', '1.00 MiB', '1.00 GiB', "
				  "'1.50 GiB']\n");
	traced_run_free(&run);
}

/* Loaded without vramtrace, marked tests run unchecked, and one warning
 * says so. */
Test(python, the_pytest_gate_warns_without_vramtrace)
{
	if (system("/usr/bin/python3 -c 'import pytest' 2>/dev/null") != 0)
		cr_skip_test("no pytest for /usr/bin/python3 (python3-pytest)");
	char test_file[600], python_path[700];
	gate_file(test_file, sizeof(test_file));
	snprintf(python_path, sizeof(python_path), "PYTHONPATH=%s",
		 build_path("VT_TEST_PYTHON_DIR"));
	struct traced_run run;
	struct run_options options = {.simulate = true,
				      .env = (const char *const[]){python_path, NULL}};
	traced_run(&run, &options,
		   (char *[]){"/usr/bin/python3", "-m", "pytest", "-q", "-p", "vramtrace.pytest",
			      "-p", "no:cacheprovider", test_file, NULL});
	cr_assert(strstr(run.out, "1 failed, 2 passed, 1 warning"), "%s %s", run.out, run.err);
	cr_assert(strstr(run.out, "limit_vram is not checked: the tests do not run under "
				  "vramtrace"),
		  "%s", run.out);
	traced_run_free(&run);
}

/* --no-framework-cache turns PyTorch's and XLA's caches off, and says so. */
Test(python, no_framework_cache_is_recorded)
{
	struct traced_run run;
	struct run_options options = {0};
	traced_run(&run, &options,
		   (char *[]){(char *)build_path("VT_TEST_TOOL"), "run", "--simulate",
			      "--no-framework-cache", "--", (char *)build_path("VT_TEST_PYTHON"),
			      (char *)script(), NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_str_eq(report_string(run.report, "run/environment/VRAMTRACE_FRAMEWORK_CACHE"),
			 "off");
	cr_assert_str_eq(
		report_string(run.report, "run/environment/PYTORCH_NO_CUDA_MEMORY_CACHING"), "1");
	cr_assert_str_eq(report_string(run.report, "run/environment/XLA_PYTHON_CLIENT_ALLOCATOR"),
			 "platform");
	traced_run_free(&run);
}

/* Under a framework's caching allocator, the summary says what a Python
 * line means (here libffi plays the framework, by a module rule). */
Test(python, the_summary_explains_framework_caches)
{
	struct traced_run run;
	run_python(&run, build_path("VT_TEST_PYTHON"),
		   (const char *const[]){"VRAMTRACE_SUMMARY=1", "VRAMTRACE_RULES=libffi=pytorch",
					 NULL});
	cr_assert(strstr(run.err, "each Python line above is where a framework's cache grew"), "%s",
		  run.err);
	traced_run_free(&run);
	run_python(&run, build_path("VT_TEST_PYTHON"),
		   (const char *const[]){"VRAMTRACE_SUMMARY=1", "VRAMTRACE_RULES=libffi=pytorch",
					 "VRAMTRACE_FRAMEWORK_CACHE=off", NULL});
	cr_assert_null(strstr(run.err, "framework's cache grew"), "not with the caches off");
	traced_run_free(&run);
}

/* Every CPython from 3.9 that pyenv holds here, where it holds them: the
 * line of load_weights, by name (qualified from 3.11). */
Test(python, every_interpreter_from_3_9, .timeout = 120)
{
	FILE *list = popen("ls -d \"$(pyenv root 2>/dev/null)\"/versions/3.*/bin/python3 "
			   "2>/dev/null",
			   "r");
	char python[600];
	unsigned checked = 0;
	while (list && fgets(python, sizeof(python), list)) {
		python[strcspn(python, "\n")] = '\0';
		int minor = 0;
		const char *version = strstr(python, "/versions/3.");
		if (!version || sscanf(version, "/versions/3.%d", &minor) != 1 || minor < 9)
			continue;
		struct traced_run run;
		run_python(&run, python, NULL);
		json_t *weights = stack_of(run.report, 64 * MiB);
		cr_assert_geq(find(weights, "load_weights", marked_line("load_weights")), 0, "%s",
			      python);
		cr_assert_geq(find(stack_of(run.report, 4 * MiB),
				   minor >= 11 ? "Model.build" : "build", marked_line("build")),
			      0, "%s", python);
		traced_run_free(&run);
		checked++;
	}
	if (list)
		pclose(list);
	if (!checked)
		cr_skip_test("no pyenv interpreters here");
}

/* The line of file (beside python_frames.py) that carries "# MARK name". */
static int marked_line_of(const char *file_name, const char *name)
{
	return marked_line_in(python_program(file_name), name);
}

/* Whether the report holds a Python frame of file_name at line. */
static bool has_python_frame(json_t *report, const char *file_name, int line)
{
	size_t i;
	json_t *frame;
	json_array_foreach (report_at(report, "frames"), i, frame) {
		const char *file = json_string_value(json_object_get(frame, "file"));
		if (json_is_true(json_object_get(frame, "python")) && file &&
		    strstr(file, file_name) &&
		    json_integer_value(json_object_get(frame, "line")) == line)
			return true;
	}
	return false;
}

/* numba, a library that drives the driver through ctypes (Debian's
 * python3-numba 0.56): two 1 GiB arrays and a 4 MiB copy, each on its own
 * Python line, none freed before the exit. */
Test(python, numba_through_ctypes, .timeout = 120)
{
	const char *python = "/usr/bin/python3";
	char path[700];
	snprintf(path, sizeof(path), "%s", script());
	snprintf(strrchr(path, '/') + 1, 200, "numba_arrays.py");
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true};
	traced_run(&run, &options, (char *[]){(char *)python, path, NULL});
	if (run.status == 77)
		cr_skip_test("numba is not installed for %s", python);
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	cr_assert(strstr(run.out, "numba_arrays: ok"), "%s", run.out);
	json_t *r = run.report;
	cr_assert_eq(report_int(r, "devices/0/peak/bytes"), 2048 * MiB + 4 * MiB);
	cr_assert_eq(report_int(r, "devices/0/allocations"), 3);
	cr_assert_eq(report_int(r, "devices/0/live_at_exit_bytes"), 2048 * MiB + 4 * MiB);
	cr_assert_str_eq(report_string(r, "devices/0/peak/api"), "cuMemAlloc_v2");
	const char *const marks[] = {"first", "second", "copy"};
	for (int i = 0; i < 3; i++)
		cr_assert(has_python_frame(r, "numba_arrays.py",
					   marked_line_of("numba_arrays.py", marks[i])),
			  "no frame of the %s array's line", marks[i]);
	traced_run_free(&run);
}

/* os.execvp calls execv once per entry of PATH, here three that cannot run
 * the program before the one that does: one report and one summary, from
 * the exec that replaced the interpreter, whose program prints as it
 * would without vramtrace. */
Test(python, os_execvp_along_path_writes_one_report, .timeout = 60)
{
	char path[700];
	snprintf(path, sizeof(path), "%s", script());
	snprintf(strrchr(path, '/') + 1, 200, "exec_search.py");
	struct traced_run run;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){"VRAMTRACE_SUMMARY=1", NULL},
	};
	traced_run(&run, &options,
		   (char *[]){(char *)build_path("VT_TEST_PYTHON"), path,
			      (char *)program_path("limits"), NULL});
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	cr_assert_str_eq(run.out, "2 arguments, the last 'count', from a plain exec\n");
	cr_assert_eq(run.reports, 1, "%u reports", run.reports);
	cr_assert_str_eq(report_string(run.report, "run/ended_by"), "exec");
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), MiB);
	cr_assert_eq(count_of(run.err, "vramtrace: report written to"), 1, "one summary: %s",
		     run.err);
	traced_run_free(&run);
}

/* A __del__ run by the interpreter's finalization allocates: its Python
 * frame is read, as any other (Py_IsInitialized is false by then). */
static void check_frames_at_shutdown(const char *python)
{
	if (access(python, X_OK) != 0)
		cr_skip_test("no %s here", python);
	char path[700];
	snprintf(path, sizeof(path), "%s", script());
	snprintf(strrchr(path, '/') + 1, 200, "python_shutdown.py");
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true};
	traced_run(&run, &options, (char *[]){(char *)python, path, NULL});
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	cr_assert_str_eq(run.err, "");
	cr_assert_eq(report_int(run.report, "devices/0/peak/bytes"), 6 * MiB);
	json_t *frames = stack_of(run.report, 6 * MiB);
	cr_assert_eq(python_count(frames), 1);
	size_t i;
	json_t *frame;
	json_array_foreach (frames, i, frame)
		if (json_is_true(json_object_get(frame, "python"))) {
			cr_assert_str_eq(json_string_value(json_object_get(frame, "function")),
					 "Holder.__del__");
			cr_assert_eq(json_integer_value(json_object_get(frame, "line")),
				     marked_line_of("python_shutdown.py", "del"));
		}
	traced_run_free(&run);
}

Test(python, frames_of_a_del_at_shutdown)
{
	check_frames_at_shutdown(build_path("VT_TEST_PYTHON"));
}

Test(python, frames_of_a_del_at_shutdown_in_the_executable)
{
	check_frames_at_shutdown("/usr/bin/python3");
}

/* A C program that allocates before it loads libpython with dlopen: the
 * interpreter is found at the first allocation after the load, and the
 * Python line is read. */
static void check_python_loaded_late(const char *python)
{
	if (access(python, X_OK) != 0)
		cr_skip_test("no %s here", python);
	char command[800], library[600];
	snprintf(command, sizeof(command),
		 "%s -c 'import sysconfig, os; "
		 "print(os.path.join(sysconfig.get_config_var(\"LIBDIR\"), "
		 "sysconfig.get_config_var(\"INSTSONAME\")))'",
		 python);
	FILE *found = popen(command, "r");
	bool read = found && fgets(library, sizeof(library), found);
	if (found)
		pclose(found);
	library[read ? strcspn(library, "\n") : 0] = '\0';
	if (!read || access(library, R_OK) != 0)
		cr_skip_test("no libpython for %s", python);
	struct traced_run run;
	struct run_options options = {.preload = true, .simulate = true};
	traced_run(&run, &options, (char *[]){(char *)program_path("python_late"), library, NULL});
	if (run.status == 77)
		cr_skip_test("cannot load %s: %s", library, run.err);
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	json_t *frames = stack_of(run.report, 2 * MiB);
	char lines[256] = "";
	size_t i, used = 0;
	json_t *frame;
	json_array_foreach (frames, i, frame)
		if (json_is_true(json_object_get(frame, "python")))
			used += (size_t)snprintf(
				lines + used, sizeof(lines) - used, "%s%s %s:%lld",
				used ? ", " : "",
				json_string_value(json_object_get(frame, "function")),
				json_string_value(json_object_get(frame, "file")),
				(long long)json_integer_value(json_object_get(frame, "line")));
	cr_assert_str_eq(lines, "allocate <string>:5, <module> <string>:6");
	cr_assert_eq(python_count(stack_of(run.report, MiB)), 0);
	traced_run_free(&run);
}

Test(python, a_libpython_loaded_after_the_first_allocation)
{
	check_python_loaded_late(build_path("VT_TEST_PYTHON"));
}

Test(python, a_libpython_loaded_after_the_first_allocation_debian)
{
	check_python_loaded_late("/usr/bin/python3");
}

/* A tag and a Python file name that hold a newline and escape sequences
 * reach the exit summary escaped, in every line that names them: the top
 * stacks, the live at exit, the failed allocation and what was live then. */
Test(python, names_in_the_summary_are_escaped)
{
	char path[600];
	snprintf(path, sizeof(path), "PYTHONPATH=%s", build_path("VT_TEST_PYTHON_DIR"));
	struct traced_run run;
	struct run_options options = {
		.preload = true,
		.simulate = true,
		.env = (const char *const[]){path, "VRAMTRACE_SUMMARY=1", NULL},
	};
	traced_run(&run, &options,
		   (char *[]){(char *)build_path("VT_TEST_PYTHON"),
			      (char *)python_program("python_hostile_names.py"), NULL});
	cr_assert_eq(run.status, 0, "%s %s", run.out, run.err);
	cr_assert_null(strchr(run.err, '\x1b'), "%s", run.err);
	cr_assert_null(strchr(run.err, '\x07'), "%s", run.err);
	cr_assert_null(strstr(run.err, "\nvramtrace: forged"), "%s", run.err);
	const char *tag = "tag\\nvramtrace: forged\\x1b[2J\\x1b]0;PWNED\\x07";
	char want[256];
	snprintf(want, sizeof(want), "#1 1.00 MiB 100.0%% [%s]\n", tag);
	cr_assert(strstr(run.err, want), "%s", run.err);
	snprintf(want, sizeof(want), "most from stack #1 [%s]: 1.00 MiB", tag);
	cr_assert(strstr(run.err, want), "%s", run.err);
	snprintf(want, sizeof(want), "requested by cudaMalloc [%s] at", tag);
	cr_assert(strstr(run.err, want), "%s", run.err);
	snprintf(want, sizeof(want), "live then: %s 1.00 MiB (100.0%%)", tag);
	cr_assert(strstr(run.err, want), "%s", run.err);
	cr_assert(strstr(run.err,
			 "<module> (file\\nvramtrace: forged\\x1b[2J\\x1b]0;PWNED\\x07.py:1)"),
		  "%s", run.err);
	traced_run_free(&run);
}
