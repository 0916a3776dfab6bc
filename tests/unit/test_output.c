#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/output.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/vt-output.XXXXXX");
	cr_assert(mkdtemp(dir));
}

static void teardown(void)
{
	char command[256];
	snprintf(command, sizeof(command), "chmod -R u+w '%s'; rm -rf '%s'", dir, dir);
	cr_assert_eq(system(command), 0);
}

TestSuite(output, .init = setup, .fini = teardown);

static bool write_hello(int fd, void *context)
{
	size_t length = strlen(context);
	return write(fd, context, length) == (ssize_t)length;
}

static char *read_all(const char *path)
{
	static char buf[256];
	FILE *file = fopen(path, "r");
	cr_assert(file, "%s", path);
	size_t got = fread(buf, 1, sizeof(buf) - 1, file);
	buf[got] = '\0';
	fclose(file);
	return buf;
}

Test(output, expands_the_template)
{
	char out[512];
	cr_assert(
		vt_output_expand("/r/vt.%p.%h.%r.%%.%x.json", 42, "node7", "3", out, sizeof(out)));
	cr_assert_str_eq(out, "/r/vt.42.node7.3.%.%x.json");
	cr_assert(vt_output_expand("/r/%r", 1, "h", "", out, sizeof(out)));
	cr_assert_str_eq(out, "/r/0");
	cr_assert_not(vt_output_expand("/r/%h%h%h", 1, "long-host-name", "", out, 20));
}

Test(output, relative_paths_are_made_absolute)
{
	char out[512], cwd[256];
	cr_assert(getcwd(cwd, sizeof(cwd)));
	cr_assert(vt_output_expand("vt.%p.json", 9, "h", "", out, sizeof(out)));
	char expected[600];
	snprintf(expected, sizeof(expected), "%s/vt.9.json", cwd);
	cr_assert_str_eq(out, expected);
}

Test(output, writes_a_private_file)
{
	char path[128], written[256];
	snprintf(path, sizeof(path), "%s/report.json", dir);
	cr_assert(vt_output_write(path, write_hello, "hello", written, sizeof(written)));
	cr_assert_str_eq(written, path);
	cr_assert_str_eq(read_all(path), "hello");
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	char leftovers[256];
	snprintf(leftovers, sizeof(leftovers), "ls '%s' | grep -c tmp", dir);
	cr_assert_neq(system(leftovers), 0, "no temporary file is left behind");
}

Test(output, never_over_an_existing_file)
{
	char path[128], second[128], written[256];
	snprintf(path, sizeof(path), "%s/report.json", dir);
	snprintf(second, sizeof(second), "%s/report-1.json", dir);
	cr_assert(vt_output_write(path, write_hello, "first", written, sizeof(written)));
	cr_assert(vt_output_write(path, write_hello, "second", written, sizeof(written)));
	cr_assert_str_eq(written, second);
	cr_assert_str_eq(read_all(path), "first");
	cr_assert_str_eq(read_all(second), "second");
}

Test(output, never_through_a_symlink)
{
	char path[128], target[128], written[256];
	snprintf(path, sizeof(path), "%s/report.json", dir);
	snprintf(target, sizeof(target), "%s/victim", dir);
	int fd = open(target, O_WRONLY | O_CREAT, 0644);
	cr_assert(write(fd, "precious", 8) == 8);
	close(fd);
	cr_assert_eq(symlink(target, path), 0);
	cr_assert(vt_output_write(path, write_hello, "report", written, sizeof(written)));
	cr_assert_str_neq(written, path);
	cr_assert_str_eq(read_all(target), "precious");
}

Test(output, an_unwritable_directory_fails_cleanly)
{
	if (geteuid() == 0)
		cr_skip_test("root writes anywhere");
	char path[128], written[256] = "";
	snprintf(path, sizeof(path), "%s/report.json", dir);
	cr_assert_eq(chmod(dir, 0500), 0);
	cr_assert_not(vt_output_write(path, write_hello, "x", written, sizeof(written)));
	cr_assert_str_eq(written, "");
}

Test(output, a_missing_directory_fails_cleanly)
{
	char path[128], written[256] = "";
	snprintf(path, sizeof(path), "%s/no/such/dir/report.json", dir);
	cr_assert_not(vt_output_write(path, write_hello, "x", written, sizeof(written)));
	cr_assert_str_eq(written, "");
}

Test(output, replacing_its_own_file)
{
	char path[128], written[256];
	snprintf(path, sizeof(path), "%s/report.json", dir);
	cr_assert(vt_output_write(path, write_hello, "checkpoint 1", written, sizeof(written)));
	cr_assert(vt_output_replace(path, write_hello, "final"));
	cr_assert_str_eq(read_all(path), "final");
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
}

static bool fail_writing(int fd, void *context)
{
	(void)fd;
	(void)context;
	return false;
}

Test(output, a_failed_write_leaves_nothing)
{
	char path[128], written[256] = "";
	snprintf(path, sizeof(path), "%s/report.json", dir);
	cr_assert_not(vt_output_write(path, fail_writing, NULL, written, sizeof(written)));
	char listing[256];
	snprintf(listing, sizeof(listing), "test -z \"$(ls -A '%s')\"", dir);
	cr_assert_eq(system(listing), 0, "no file, temporary or final");
}
