/* Where the tool's output goes and what reaches it: documents that keep
 * every piece (file names that are not UTF-8 escaped, never dropped),
 * -o onto a regular file, a symlink, a new path, a device or a FIFO, the
 * mode an output gets, and standard output that cannot be written. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static const char *fixture(const char *name)
{
	static __thread char path[4][512];
	static __thread int next;
	char *out = path[next++ % 4];
	snprintf(out, 512, "%s/%s", build_path("VT_TEST_FIXTURES"), name);
	return out;
}

static void tool(struct traced_run *run, char **args)
{
	char *argv[32] = {(char *)build_path("VT_TEST_TOOL")};
	size_t n = 1;
	for (; args[n - 1] && n < 31; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	struct run_options options = {0};
	traced_run(run, &options, argv);
}

static void copy_file(const char *from, const char *to)
{
	char command[2048];
	snprintf(command, sizeof(command), "cp '%s' '%s'", from, to);
	cr_assert_eq(system(command), 0);
}

static char *scratch(void)
{
	char *dir = strdup("/tmp/vt-out.XXXXXX");
	cr_assert(mkdtemp(dir));
	return dir;
}

static void remove_tree(char *dir)
{
	char command[600];
	snprintf(command, sizeof(command), "rm -rf '%s'", dir);
	cr_assert_eq(system(command), 0);
	free(dir);
}

/* A file name that is not UTF-8 went into merge's and diff's documents
 * through a json_pack that failed unchecked: merge dropped that rank and
 * exited 0, diff --format json wrote an empty line. */
Test(tool_output, file_names_that_are_not_utf8_are_kept_escaped)
{
	char *dir = scratch();
	char odd[600], plain[600], merged[600];
	snprintf(odd, sizeof(odd), "%s/r0\xff.json", dir);
	snprintf(plain, sizeof(plain), "%s/r1.json", dir);
	snprintf(merged, sizeof(merged), "%s/merged.json", dir);
	copy_file(fixture("rank0.json"), odd);
	copy_file(fixture("rank1.json"), plain);
	struct traced_run run;
	tool(&run, (char *[]){"merge", odd, plain, "-o", merged, NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	traced_run_free(&run);
	json_t *document = json_load_file(merged, 0, NULL);
	cr_assert(document);
	json_t *ranks = json_object_get(document, "ranks");
	cr_assert_eq(json_array_size(ranks), 2);
	char expected[640];
	snprintf(expected, sizeof(expected), "%s/r0\\xff.json", dir);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(ranks, 0), "file")),
			 expected);
	cr_assert_str_eq(
		json_string_value(json_object_get(json_object_get(document, "peak"), "min_rank")),
		"0");
	json_decref(document);

	tool(&run, (char *[]){"diff", odd, plain, "--format", "json", NULL});
	cr_assert_eq(run.status, 0, "%s", run.err);
	document = json_loads(run.out, 0, NULL);
	cr_assert(document, "%s", run.out);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(document, "a"), "file")),
			 expected);
	json_decref(document);
	traced_run_free(&run);
	remove_tree(dir);
}
