/* vramtrace top PID: a live view of a traced process's GPU memory, one
 * snapshot a second: per device live, peak and capacity with a sparkline
 * of the last minutes, the tags and the stacks holding most now, and the
 * failures so far. Keys: d next device, s sort by live or by peak, p pause,
 * q quit. --once prints one plain-text view, for scripts. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "control_client.h"
#include "formats.h"
#include "options.h"
#include "report_file.h"
#include "stack_view.h"

#define HISTORY     64 /* sparkline points: a minute at the default interval */
#define MAX_DEVICES 64

struct view {
	pid_t pid;
	long interval_ms;
	bool once, color, by_peak, paused;
	size_t device; /* index among the report's devices */
	int rows, columns;
	/* Live bytes per device ordinal, oldest first. */
	int64_t history[MAX_DEVICES][HISTORY];
	unsigned history_count[MAX_DEVICES];
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: vramtrace top PID [--interval S] [--once]\n\n"
		     "A live view of a process traced by vramtrace: per device live, peak and\n"
		     "capacity with a sparkline, the tags and the stacks holding most, and the\n"
		     "failed allocations so far.\n\n"
		     "Keys: d next device, s sort tags by live or by peak, p pause, q quit.\n\n"
		     "Options:\n"
		     "  --interval S  seconds between refreshes, from 0.1 (default 1)\n"
		     "  --once        print one view as plain text and exit\n"
		     "  -h, --help    show this help\n\n"
		     "Exit status: 0 when quit, 1 the process could not be asked (or stopped\n"
		     "answering), 2 bad usage.\n");
}

static void remember(struct view *view, const struct vt_report_model *report)
{
	for (size_t i = 0; i < report->device_count; i++) {
		int64_t ordinal = report->devices[i].ordinal;
		if (ordinal < 0 || ordinal >= MAX_DEVICES)
			continue;
		unsigned *count = &view->history_count[ordinal];
		int64_t *points = view->history[ordinal];
		if (*count == HISTORY)
			memmove(points, points + 1, (HISTORY - 1) * sizeof(*points));
		else
			(*count)++;
		points[*count - 1] = report->devices[i].live_at_exit_bytes;
	}
}

/* Eight levels of block, scaled to the peak; digits 0-8 in plain text. */
static void sparkline(FILE *out, const struct view *view, const struct vt_owner *device, int width)
{
	static const char *const blocks[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
	int64_t ordinal = device->ordinal;
	if (ordinal < 0 || ordinal >= MAX_DEVICES)
		return;
	unsigned count = view->history_count[ordinal];
	unsigned first = count > (unsigned)width ? count - (unsigned)width : 0;
	int64_t top = device->peak.bytes;
	for (unsigned i = first; i < count; i++)
		top = view->history[ordinal][i] > top ? view->history[ordinal][i] : top;
	for (unsigned i = first; i < count; i++) {
		int level = top ? (int)((view->history[ordinal][i] * 8 + top - 1) / top) : 0;
		if (view->once)
			fputc('0' + level, out);
		else
			fputs(blocks[level], out);
	}
}

static int by_live(const void *a, const void *b)
{
	int64_t x = (*(const struct vt_tag_row *const *)a)->counters.live_at_exit_bytes;
	int64_t y = (*(const struct vt_tag_row *const *)b)->counters.live_at_exit_bytes;
	return (x < y) - (x > y);
}

static int by_peak(const void *a, const void *b)
{
	int64_t x = (*(const struct vt_tag_row *const *)a)->counters.peak_bytes;
	int64_t y = (*(const struct vt_tag_row *const *)b)->counters.peak_bytes;
	return (x < y) - (x > y);
}

/* The stack as every listing shows it in one line: the program's own
 * line first, library frames folded. */
static const char *stack_place(const struct vt_report_model *report,
			       const struct vt_leak_model *leak, size_t width, char *buf,
			       size_t size)
{
	if (!leak->stack.has) {
		snprintf(buf, size, "(stacks off)");
		return buf;
	}
	struct vt_view_options options = {0};
	return vt_stack_line(report, leak->stack.value, &options, width, buf, size);
}

static void tags_section(FILE *out, const struct view *view, const struct vt_owner *device,
			 int rows)
{
	const struct vt_tag_row **sorted = calloc(device->tag_count + 1, sizeof(*sorted));
	if (!sorted)
		return;
	for (size_t i = 0; i < device->tag_count; i++)
		sorted[i] = &device->tags[i];
	qsort(sorted, device->tag_count, sizeof(*sorted), view->by_peak ? by_peak : by_live);
	fprintf(out, "\n%-32s %12s %12s %8s\n", view->by_peak ? "TAG (by peak)" : "TAG (by live)",
		"LIVE", "PEAK", "ALLOCS");
	/* More tags than rows: the last row says what the others hold, so the
	 * rows add up to the device's live bytes. */
	size_t shown = device->tag_count <= (size_t)rows ? device->tag_count : (size_t)rows - 1;
	for (size_t i = 0; i < shown; i++) {
		char live[32], peak[32];
		char tag[128];
		fprintf(out, "%-32.32s %12s %12s %8" PRId64 "\n",
			vt_safe(sorted[i]->tag, "", tag, sizeof(tag)),
			vt_human(sorted[i]->counters.live_at_exit_bytes, live, sizeof(live)),
			vt_human(sorted[i]->counters.peak_bytes, peak, sizeof(peak)),
			sorted[i]->counters.allocations);
	}
	if (shown < device->tag_count) {
		int64_t rest = 0;
		for (size_t i = shown; i < device->tag_count; i++)
			rest += sorted[i]->counters.live_at_exit_bytes;
		char live[32];
		fprintf(out, "and %zu more tag%s, %s live\n", device->tag_count - shown,
			device->tag_count - shown > 1 ? "s" : "",
			vt_human(rest, live, sizeof(live)));
	}
	free(sorted);
}

static void stacks_section(FILE *out, const struct vt_report_model *report,
			   const struct vt_owner *device, int rows, int columns)
{
	fprintf(out, "\n%12s %6s  %-16s %s\n", "LIVE", "COUNT", "TAG", "WHERE");
	for (size_t i = 0; i < device->leak_count && (int)i < rows; i++) {
		const struct vt_leak_model *leak = &device->leaks[i];
		char live[32], place[512], tag[128];
		int room = columns - 38 > 10 ? columns - 38 : 10;
		fprintf(out, "%12s %6" PRId64 "  %-16.16s %.*s\n",
			vt_human(leak->bytes, live, sizeof(live)), leak->count,
			vt_safe(leak->tag, "", tag, sizeof(tag)), room,
			stack_place(report, leak, (size_t)room, place, sizeof(place)));
	}
}

/* The latest failed allocations, newest first. */
static void failures_section(FILE *out, const struct vt_owner *device, int rows)
{
	if (!device->failure_count)
		return;
	fprintf(out, "\n%12s %10s  %-16s %s\n", "FAILED", "AT", "TAG", "ERROR");
	for (size_t shown = 0; shown < device->failure_count && (int)shown < rows; shown++) {
		const struct vt_failure_model *failure =
			&device->failures[device->failure_count - 1 - shown];
		char bytes[32], tag[128], error[128];
		fprintf(out, "%12s %9.3fs  %-16.16s %s\n",
			vt_bytes_text(failure->bytes, bytes, sizeof(bytes)),
			(double)failure->at_ns / 1e9, vt_safe(failure->tag, "-", tag, sizeof(tag)),
			vt_safe(failure->error_name, "?", error, sizeof(error)));
	}
}

static void device_header(FILE *out, const struct view *view, const struct vt_owner *device)
{
	char live[32], peak[32], capacity[32], name[256];
	fprintf(out, "device %" PRId64 " (%s): live %s", device->ordinal,
		vt_safe(device->name, "unnamed", name, sizeof(name)),
		vt_human(device->live_at_exit_bytes, live, sizeof(live)));
	if (device->capacity_bytes.has)
		fprintf(out, " of %s (%.1f%%)",
			vt_human(device->capacity_bytes.value, capacity, sizeof(capacity)),
			device->capacity_bytes.value ? 100.0 * (double)device->live_at_exit_bytes /
							       (double)device->capacity_bytes.value
						     : 0.0);
	fprintf(out, "\n  peak %s, %" PRId64 " failed allocation%s\n",
		vt_human(device->peak.bytes, peak, sizeof(peak)), device->failed_allocations,
		device->failed_allocations == 1 ? "" : "s");
	vt_print_levels(out, device, "  ");
	fputs("  ", out);
	sparkline(out, view, device, view->columns - 24 < HISTORY ? view->columns - 24 : HISTORY);
	fputs("  (live, 0 to peak)\n", out);
}

static void draw(FILE *out, struct view *view, const struct vt_report_model *report)
{
	char command[256] = "", word[256];
	for (size_t i = 0, used = 0; i < report->run.command_count && used < sizeof(command); i++)
		used += (size_t)snprintf(command + used, sizeof(command) - used, "%s%s",
					 i ? " " : "",
					 vt_safe(report->run.command[i], "", word, sizeof(word)));
	fprintf(out, "vramtrace top: pid %d  %.*s%s\n", (int)view->pid, view->columns - 30, command,
		view->paused ? "  [paused]" : "");
	if (!report->device_count) {
		fputs("no GPU memory allocated yet\n", out);
		return;
	}
	if (view->device >= report->device_count)
		view->device = 0;
	const struct vt_owner *device = &report->devices[view->device];
	device_header(out, view, device);
	int room = view->rows - 8;
	tags_section(out, view, device, room / 2 > 3 ? room / 2 : 3);
	int failures = device->failure_count ? 4 : 0;
	stacks_section(out, report, device,
		       room - room / 2 - failures > 3 ? room - room / 2 - failures : 3,
		       view->columns);
	failures_section(out, device, failures - 2);
	if (!view->once)
		fputs("\nd device  s sort  p pause  q quit", out);
}

/* text with every line cut to the terminal's width, counting characters
 * (the sparkline's blocks are several bytes each). */
static void print_cut(const char *text, int columns)
{
	int column = 0;
	for (const char *at = text; *at; at++) {
		if (*at == '\n') {
			column = 0;
		} else if (((unsigned char)*at & 0xc0) != 0x80 && ++column > columns) {
			continue;
		} else if (column > columns) {
			continue;
		}
		putchar(*at);
	}
}

static bool refresh(struct view *view)
{
	struct vt_report_file file;
	char *data = NULL, error[1024];
	size_t length;
	if (!vt_control_snapshot(view->pid, false, &file, &data, &length, error, sizeof(error))) {
		if (!view->once)
			fputc('\n', stderr); /* off the screen's last line */
		vt_diagnostic("vramtrace top: %s", error);
		return false;
	}
	remember(view, &file.report);
	char *text = NULL;
	size_t size = 0;
	FILE *screen = open_memstream(&text, &size);
	if (screen) {
		draw(screen, view, &file.report);
		fclose(screen);
		if (!view->once)
			fputs("\033[H\033[2J", stdout);
		print_cut(text, view->columns);
		free(text);
	}
	fflush(stdout);
	vt_report_close(&file);
	free(data);
	return true;
}

static struct termios saved_terminal;
static bool terminal_raw;

static void restore_terminal(void)
{
	if (terminal_raw) {
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_terminal);
		fputs("\033[?25h\n", stdout);
		fflush(stdout);
		terminal_raw = false;
	}
}

static void on_signal(int signal_number)
{
	(void)signal_number;
	restore_terminal();
	_exit(VT_EXIT_OK);
}

static void raw_terminal(void)
{
	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_terminal) != 0)
		return;
	struct termios raw = saved_terminal;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0) {
		terminal_raw = true;
		atexit(restore_terminal);
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		fputs("\033[?25l", stdout);
	}
}

/* Waits one interval for a key; false when the view should end. */
static bool wait_key(struct view *view)
{
	struct pollfd ready = {STDIN_FILENO, POLLIN, 0};
	if (poll(&ready, 1, (int)view->interval_ms) <= 0)
		return true;
	char key;
	if (read(STDIN_FILENO, &key, 1) != 1)
		return true;
	switch (key) {
	case 'q': return false;
	case 'd': view->device++; break;
	case 's': view->by_peak = !view->by_peak; break;
	case 'p': view->paused = !view->paused; break;
	default: break;
	}
	return true;
}

static void terminal_size(struct view *view)
{
	struct winsize size;
	view->rows = 24;
	view->columns = 80;
	if (!view->once && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_row) {
		view->rows = size.ws_row;
		view->columns = size.ws_col;
	}
}

static bool parse_interval(const char *text, long *milliseconds)
{
	char *end;
	errno = 0;
	double seconds = strtod(text, &end);
	if (end == text || *end || errno || !(seconds >= 0.1 && seconds <= 3600)) {
		vt_diagnostic("vramtrace top: --interval '%s' is not seconds from 0.1 to 3600",
			      text);
		return false;
	}
	*milliseconds = (long)(seconds * 1000);
	return true;
}

int vt_command_top(int argc, char **argv)
{
	static const struct vt_option top_options[] = {
		{"interval", 0, VT_OPTION_VALUE, 'i', "SECONDS, e.g. 0.5", NULL},
		{"once", 0, VT_OPTION_FLAG, '1', NULL, NULL},
		{"help", 'h', VT_OPTION_FLAG, 'h', NULL, NULL},
	};
	static struct view view = {.interval_ms = 1000};
	const char *pid_text = NULL;
	struct vt_arguments arguments;
	vt_arguments_init(&arguments, "top", usage, argc, argv, top_options,
			  sizeof(top_options) / sizeof(top_options[0]));
	const char *value;
	for (int id; (id = vt_arguments_next(&arguments, &value)) != VT_ARGUMENT_END;) {
		if (id <= VT_ARGUMENT_ERROR)
			return vt_arguments_exit(id);
		if (id == 'i' && !parse_interval(value, &view.interval_ms))
			return VT_EXIT_BAD_INPUT;
		if (id == '1')
			view.once = true;
		if (id == VT_ARGUMENT_OPERAND && pid_text) {
			vt_usage_error("top", "give one process id, not '%s' too", value);
			return VT_EXIT_BAD_INPUT;
		}
		if (id == VT_ARGUMENT_OPERAND)
			pid_text = value;
	}
	if (!pid_text) {
		vt_usage_error("top", "give one process id (vramtrace ps lists them)");
		return VT_EXIT_BAD_INPUT;
	}
	if (!vt_parse_pid("top", pid_text, &view.pid))
		return VT_EXIT_BAD_INPUT;
	view.once = view.once || !isatty(STDOUT_FILENO);
	terminal_size(&view);
	if (view.once)
		return refresh(&view) ? VT_EXIT_OK : VT_EXIT_FAILED;
	raw_terminal();
	for (bool first = true;; first = false) {
		terminal_size(&view);
		if ((first || !view.paused) && !refresh(&view))
			return VT_EXIT_FAILED;
		if (!wait_key(&view))
			break;
	}
	restore_terminal();
	return VT_EXIT_OK;
}
