/* The exit summary and `vramtrace report --format text` are one renderer
 * (lib/report/text_lines.h): every line the summary shows of a device or
 * the host (its heading, peak, kinds, tags, contexts, device view, failed
 * allocations and live bytes at exit) is, to the byte, a line of the text
 * format of the report the same run wrote. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static const char *const summary[] = {"VRAMTRACE_SUMMARY=1", NULL};

/* Whether line (without its prefix) is one the two renderers share. */
static bool shared(const char *line)
{
	static const char *const starts[] = {"device ",
					     "host (pinned memory)",
					     "  peak ",
					     "  kinds at the peak:",
					     "  tags at the peak:",
					     "  device view:",
					     "  live at exit:",
					     "  failed allocations:"};
	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		if (strncmp(line, starts[i], strlen(starts[i])) == 0)
			return true;
	return strstr(line, " context") && strstr(line, " made on it");
}

/* The rows under the kinds and tags headings, and failures' lines. */
static bool shared_row(const char *line, bool in_counters)
{
	return (in_counters && strncmp(line, "    ", 4) == 0 &&
		strncmp(line, "    and ", 8) != 0) ||
	       (strncmp(line, "    ", 4) == 0 && strstr(line, " requested by "));
}

/* Compares every shared summary line of a run with the text format;
 * returns how many were compared. */
static size_t agree(const struct traced_run *run, const char *text)
{
	size_t compared = 0;
	bool in_counters = false;
	char line[4096];
	for (const char *at = run->err; (at = strstr(at, "vramtrace: "));) {
		at += strlen("vramtrace: ");
		size_t length = strcspn(at, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)length, at);
		at += length;
		bool heading = strstr(line, "at the peak:") && strncmp(line, "  ", 2) == 0 &&
			       line[2] != ' ';
		if (heading)
			in_counters = strstr(line, "kinds") || strstr(line, "tags");
		else if (strncmp(line, "    ", 4) != 0)
			in_counters = false;
		if (!shared(line) && !shared_row(line, in_counters))
			continue;
		/* The summary names the largest leak group on its live line. */
		char *most = strstr(line, "; most ");
		if (most)
			*most = '\0';
		char wanted[4200];
		snprintf(wanted, sizeof(wanted), "%s%s", line, most ? "" : "\n");
		const char *found = strstr(text, wanted);
		cr_assert(found && (found == text || found[-1] == '\n'),
			  "the summary's line\n%s\nis not in the text format:\n%s", line, text);
		compared++;
	}
	return compared;
}

static void renders_alike(const char *program, const char *const *env, size_t at_least)
{
	struct traced_run run;
	trace_program(&run, program, env);
	cr_assert_eq(run.status, 0, "%s: %s", program, run.err);
	char path[512];
	snprintf(path, sizeof(path), "%s/report.json", run.dir);
	struct traced_run text;
	struct run_options plain = {0};
	traced_run(&text, &plain,
		   (char *[]){(char *)build_path("VT_TEST_TOOL"), "report", path, "--top", "1000",
			      NULL});
	cr_assert_eq(text.status, 0, "%s", text.err);
	size_t compared = agree(&run, text.out);
	cr_log_info("%s: %zu lines of the summary agree", program, compared);
	cr_assert_geq(compared, at_least, "%s: %zu lines compared\n%s", program, compared, run.err);
	traced_run_free(&text);
	traced_run_free(&run);
}

Test(text_agreement, a_device_with_kinds_and_leaks)
{
	renders_alike("inlined", summary, 5);
}

Test(text_agreement, tags_and_a_device_view)
{
	renders_alike("tags", summary, 8);
}

Test(text_agreement, failed_allocations_and_their_snapshot)
{
	renders_alike("oom_snapshot", summary, 6);
}

Test(text_agreement, graph_memory_reserved_at_exit)
{
	renders_alike("graph_free_outside", summary, 5);
}

Test(text_agreement, two_devices)
{
	static const char *const env[] = {"VRAMTRACE_SUMMARY=1", "VRAMSIM_DEVICES=2", NULL};
	renders_alike("two_devices", env, 8);
}

Test(text_agreement, pinned_host_memory)
{
	renders_alike("sequence", summary, 4);
}
