/* vramtrace metrics: OpenMetrics text of running traced processes, for
 * Prometheus: printed once, written for node_exporter's textfile collector
 * (--textfile), or served on /metrics (--listen). It is the tool that
 * serves, never the traced process, which only hands out snapshots. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "control_client.h"
#include "options.h"
#include "report_file.h"

#define MAX_PROCESSES 4096
/* Tags per device and process, the rest summed as "other": the series
 * count stays fixed however many tags a program makes. */
#define TAG_SERIES 8

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: vramtrace metrics [PID...] [--textfile DIR [--interval S] [--count N]]\n"
		"       vramtrace metrics [PID...] --listen ADDRESS:PORT\n\n"
		"OpenMetrics text of the running processes traced by vramtrace (all of this\n"
		"user's, or those named): live bytes by device and tag (the %d largest tags,\n"
		"the rest as tag=\"other\"), peak bytes, allocations and failed allocations.\n\n"
		"Options:\n"
		"  --textfile DIR    write DIR/vramtrace.prom (atomically) for node_exporter's\n"
		"                    textfile collector, every --interval seconds\n"
		"  --interval S      seconds between writes (default 15)\n"
		"  --count N         stop after N writes (default: never)\n"
		"  --listen ADDR:PORT  serve /metrics over HTTP, e.g. 127.0.0.1:9464\n"
		"  -h, --help        show this help\n",
		TAG_SERIES);
}

/* A label value as OpenMetrics escapes it. */
static void label_value(FILE *out, const char *text)
{
	for (; text && *text; text++) {
		if (*text == '\\' || *text == '"')
			fprintf(out, "\\%c", *text);
		else if (*text == '\n')
			fputs("\\n", out);
		else
			fputc(*text, out);
	}
}

struct series_labels {
	int64_t gpu;
	const char *uuid, *model_name;
	pid_t pid;
};

static void labels(FILE *out, const struct series_labels *series, const char *tag)
{
	fprintf(out, "{gpu=\"%" PRId64 "\"", series->gpu);
	if (series->uuid) {
		fputs(",UUID=\"", out);
		label_value(out, series->uuid);
		fputc('"', out);
	}
	if (series->model_name) {
		fputs(",modelName=\"", out);
		label_value(out, series->model_name);
		fputc('"', out);
	}
	fprintf(out, ",pid=\"%d\"", (int)series->pid);
	if (tag) {
		fputs(",tag=\"", out);
		label_value(out, tag);
		fputc('"', out);
	}
	fputc('}', out);
}

struct process {
	pid_t pid;
	struct vt_report_file file;
	char *data;
};

enum family { LIVE, PEAK, CAPACITY, ALLOCATIONS, FAILED, FAMILIES };

static const struct {
	const char *name, *type, *unit, *help;
} families[FAMILIES] = {
	{"vramtrace_device_live_bytes", "gauge", "bytes",
	 "Device memory allocated and not yet freed, by tag."},
	{"vramtrace_device_peak_bytes", "gauge", "bytes",
	 "The highest device memory allocated at once since the process started."},
	{"vramtrace_device_capacity_bytes", "gauge", "bytes", "The device's total memory."},
	{"vramtrace_allocations", "counter", NULL, "Successful device memory allocations."},
	{"vramtrace_failed_allocations", "counter", NULL, "Allocation calls that failed."},
};

static int by_live(const void *a, const void *b)
{
	int64_t x = (*(const struct vt_tag_row *const *)a)->counters.live_at_exit_bytes;
	int64_t y = (*(const struct vt_tag_row *const *)b)->counters.live_at_exit_bytes;
	return (x < y) - (x > y);
}

static void live_by_tag(FILE *out, const struct vt_owner *device,
			const struct series_labels *series)
{
	const struct vt_tag_row **rows = calloc(device->tag_count + 1, sizeof(*rows));
	if (!rows)
		return;
	for (size_t i = 0; i < device->tag_count; i++)
		rows[i] = &device->tags[i];
	qsort(rows, device->tag_count, sizeof(*rows), by_live);
	/* Once the rest is summed as tag="other", a tag of the program's own
	 * named "other" is part of that rest: a series of its own beside it
	 * would repeat the label set, which OpenMetrics forbids and a scraper
	 * keeps one of. */
	bool grouping = device->tag_count > TAG_SERIES;
	int64_t other = 0;
	size_t shown = 0;
	for (size_t i = 0; i < device->tag_count; i++) {
		bool named_other = rows[i]->tag && strcmp(rows[i]->tag, "other") == 0;
		if (shown < TAG_SERIES && !(grouping && named_other)) {
			fputs(families[LIVE].name, out);
			labels(out, series, rows[i]->tag);
			fprintf(out, " %" PRId64 "\n", rows[i]->counters.live_at_exit_bytes);
			shown++;
		} else {
			other += rows[i]->counters.live_at_exit_bytes;
		}
	}
	if (grouping) {
		fputs(families[LIVE].name, out);
		labels(out, series, "other");
		fprintf(out, " %" PRId64 "\n", other);
	}
	free(rows);
}

static void family_samples(FILE *out, enum family family, const struct process *processes,
			   int count)
{
	for (int p = 0; p < count; p++) {
		const struct vt_report_model *report = &processes[p].file.report;
		for (size_t d = 0; d < report->device_count; d++) {
			const struct vt_owner *device = &report->devices[d];
			struct series_labels series = {device->ordinal, device->uuid, device->name,
						       processes[p].pid};
			if (family == LIVE) {
				live_by_tag(out, device, &series);
				continue;
			}
			if (family == CAPACITY && !device->capacity_bytes.has)
				continue;
			int64_t value = family == PEAK          ? device->peak.bytes
					: family == CAPACITY    ? device->capacity_bytes.value
					: family == ALLOCATIONS ? device->allocations
								: device->failed_allocations;
			fprintf(out, "%s%s", families[family].name,
				families[family].unit ? "" : "_total");
			labels(out, &series, NULL);
			fprintf(out, " %" PRId64 "\n", value);
		}
	}
}

static void write_metrics(FILE *out, const struct process *processes, int count)
{
	for (int f = 0; f < FAMILIES; f++) {
		fprintf(out, "# TYPE %s %s\n", families[f].name, families[f].type);
		if (families[f].unit)
			fprintf(out, "# UNIT %s %s\n", families[f].name, families[f].unit);
		fprintf(out, "# HELP %s %s\n", families[f].name, families[f].help);
		family_samples(out, (enum family)f, processes, count);
	}
	fputs("# EOF\n", out);
}

struct gathering {
	struct process *processes;
	int taken, missing;
};

static void keep_taken(pid_t pid, struct vt_report_file *file, char *data, void *context)
{
	struct gathering *gathering = context;
	gathering->processes[gathering->taken++] =
		(struct process){.pid = pid, .file = *file, .data = data};
}

static void count_missed(pid_t pid, const char *error, void *context)
{
	(void)pid;
	vt_diagnostic("vramtrace metrics: %s", error);
	((struct gathering *)context)->missing++;
}

/* Snapshots of the processes named (all of this user's when none), all
 * asked at once: a process that has ended since is left out with a word
 * on stderr, and one that does not answer costs the others nothing. */
static int gather(const pid_t *named, int named_count, struct process *processes, int *missing)
{
	static pid_t listed[MAX_PROCESSES];
	char error[1024];
	int count = named_count;
	*missing = 0;
	if (!named_count) {
		count = vt_control_list(listed, MAX_PROCESSES, error, sizeof(error));
		if (count < 0) {
			vt_diagnostic("vramtrace metrics: %s", error);
			return 0;
		}
		named = listed;
	}
	struct gathering gathering = {processes, 0, 0};
	vt_control_snapshot_all(named, (size_t)count,
				&(struct vt_control_visit){keep_taken, count_missed, &gathering});
	*missing = gathering.missing;
	return gathering.taken;
}

static void release(struct process *processes, int count)
{
	for (int i = 0; i < count; i++) {
		vt_report_close(&processes[i].file);
		free(processes[i].data);
	}
}

/* The whole text, in memory: for a file written at once or an HTTP body. */
static char *render(const pid_t *named, int named_count, size_t *length, int *missing)
{
	static struct process processes[MAX_PROCESSES];
	int count = gather(named, named_count, processes, missing);
	char *text = NULL;
	FILE *out = open_memstream(&text, length);
	if (out) {
		write_metrics(out, processes, count);
		fclose(out);
	}
	release(processes, count);
	return text;
}

static bool write_textfile(const char *directory, const char *text, size_t length)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/vramtrace.prom", directory);
	struct vt_cli_output output;
	if (!vt_cli_output_open(&output, path, "metrics"))
		return false;
	bool ok = fwrite(text, 1, length, output.stream) == length;
	return vt_cli_output_commit(&output, "metrics") && ok;
}

static int textfile_loop(const char *directory, long interval, long count, const pid_t *named,
			 int named_count)
{
	for (long written = 0; count == 0 || written < count; written++) {
		if (written) {
			struct timespec pause = {interval, 0};
			while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
				;
		}
		size_t length = 0;
		int missing;
		char *text = render(named, named_count, &length, &missing);
		bool ok = text && write_textfile(directory, text, length);
		free(text);
		if (!ok)
			return VT_EXIT_FAILED;
	}
	return VT_EXIT_OK;
}

static bool parse_address(const char *text, struct sockaddr_in *address)
{
	const char *colon = strrchr(text, ':');
	char host[64];
	if (!colon || (size_t)(colon - text) >= sizeof(host))
		return false;
	memcpy(host, text, (size_t)(colon - text));
	host[colon - text] = '\0';
	char *end;
	long port = strtol(colon + 1, &end, 10);
	*address = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	return colon[1] && !*end && port > 0 && port < 65536 &&
	       inet_pton(AF_INET, host, &address->sin_addr) == 1;
}

/* A client has REQUEST_MS from connecting to send its request's head, and
 * ANSWER_MS to take the answer: one that trickles or stops reading is
 * dropped, and the clients queued behind it are served. */
#define REQUEST_MS 2000
#define ANSWER_MS  5000

static int64_t now_ms(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Waits until fd is ready for events, false once the deadline passed. */
static bool ready(int fd, short events, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - now_ms();
		struct pollfd wanted = {fd, events, 0};
		int got = left > 0 ? poll(&wanted, 1, (int)left) : 0;
		if (got < 0 && errno == EINTR)
			continue;
		return got > 0;
	}
}

static bool send_within(int fd, const char *data, size_t length, int64_t deadline)
{
	for (size_t sent = 0; sent < length;) {
		ssize_t wrote = send(fd, data + sent, length - sent, MSG_NOSIGNAL);
		if (wrote < 0 &&
		    (errno == EINTR || (errno == EAGAIN && ready(fd, POLLOUT, deadline))))
			continue;
		if (wrote <= 0)
			return false;
		sent += (size_t)wrote;
	}
	return true;
}

static void send_text(int fd, const char *status, const char *type, const char *body, size_t length)
{
	char head[256];
	int used = snprintf(head, sizeof(head),
			    "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			    "Connection: close\r\n\r\n",
			    status, type, length);
	int64_t deadline = now_ms() + ANSWER_MS;
	if (send_within(fd, head, (size_t)used, deadline))
		send_within(fd, body, length, deadline);
}

/* One request: its head within REQUEST_MS in all, 8 KiB at most. */
static void serve_request(int fd, const pid_t *named, int named_count)
{
	char request[8192];
	size_t used = 0;
	int64_t deadline = now_ms() + REQUEST_MS;
	while (used < sizeof(request) - 1 && !memmem(request, used, "\r\n\r\n", 4)) {
		if (!ready(fd, POLLIN, deadline))
			return;
		ssize_t got = recv(fd, request + used, sizeof(request) - 1 - used, 0);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			return;
		used += (size_t)got;
	}
	request[used] = '\0';
	if (strncmp(request, "GET /metrics ", 13) != 0 &&
	    strncmp(request, "GET /metrics?", 13) != 0) {
		static const char missing[] = "vramtrace serves /metrics only\n";
		send_text(fd, "404 Not Found", "text/plain", missing, sizeof(missing) - 1);
		return;
	}
	size_t length = 0;
	int missing;
	char *text = render(named, named_count, &length, &missing);
	send_text(fd, "200 OK", "application/openmetrics-text; version=1.0.0; charset=utf-8",
		  text ? text : "", text ? length : 0);
	free(text);
}

static int listen_loop(const char *where, const pid_t *named, int named_count)
{
	struct sockaddr_in address;
	if (!parse_address(where, &address)) {
		vt_diagnostic("vramtrace metrics: --listen '%s' is not ADDRESS:PORT, like "
			      "127.0.0.1:9464",
			      where);
		return VT_EXIT_BAD_INPUT;
	}
	int server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int yes = 1;
	setsockopt(server, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
	if (server < 0 || bind(server, (struct sockaddr *)&address, sizeof(address)) != 0 ||
	    listen(server, 16) != 0) {
		vt_diagnostic("vramtrace metrics: cannot listen on %s: %s", where, strerror(errno));
		return VT_EXIT_FAILED;
	}
	vt_diagnostic("vramtrace metrics: serving http://%s/metrics", where);
	for (;;) {
		int client = accept4(server, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (client < 0)
			continue;
		serve_request(client, named, named_count);
		close(client);
	}
}

int vt_command_metrics(int argc, char **argv)
{
	static const struct vt_option metrics_options[] = {
		{"textfile", 0, VT_OPTION_VALUE, 't', "DIR, a directory", NULL},
		{"interval", 0, VT_OPTION_VALUE, 'i', "SECONDS", NULL},
		{"count", 0, VT_OPTION_VALUE, 'c', "N", NULL},
		{"listen", 0, VT_OPTION_VALUE, 'l', "ADDRESS:PORT", NULL},
		{"help", 'h', VT_OPTION_FLAG, 'h', NULL, NULL},
	};
	const char *textfile = NULL, *listen_at = NULL;
	long interval = 15, count = 0;
	static pid_t named[MAX_PROCESSES];
	int named_count = 0;
	struct vt_arguments arguments;
	vt_arguments_init(&arguments, "metrics", usage, argc, argv, metrics_options,
			  sizeof(metrics_options) / sizeof(metrics_options[0]));
	const char *value;
	for (int id; (id = vt_arguments_next(&arguments, &value)) != VT_ARGUMENT_END;) {
		bool ok = true;
		switch (id) {
		case VT_ARGUMENT_ERROR:
		case VT_ARGUMENT_HELP: return vt_arguments_exit(id);
		case 't':
			/* "" made "/vramtrace.prom": the root directory, written
			 * every interval */
			textfile = value;
			if (!*value)
				vt_usage_error("metrics", "--textfile wants a directory, not ''");
			ok = *value != '\0';
			break;
		case 'l': listen_at = value; break;
		case 'i':
			ok = vt_parse_count_option("metrics", "--interval", value, 1, 86400,
						   &interval);
			break;
		case 'c':
			ok = vt_parse_count_option("metrics", "--count", value, 0, 1000000000,
						   &count);
			break;
		default:
			if (named_count == MAX_PROCESSES) {
				vt_usage_error("metrics", "too many process ids");
				return VT_EXIT_BAD_INPUT;
			}
			ok = vt_parse_pid("metrics", value, &named[named_count++]);
		}
		if (!ok)
			return VT_EXIT_BAD_INPUT;
	}
	if (textfile && listen_at) {
		vt_usage_error("metrics", "give --textfile or --listen, not both");
		return VT_EXIT_BAD_INPUT;
	}
	signal(SIGPIPE, SIG_IGN);
	if (listen_at)
		return listen_loop(listen_at, named, named_count);
	if (textfile)
		return textfile_loop(textfile, interval, count, named, named_count);
	size_t length = 0;
	int missing;
	char *text = render(named, named_count, &length, &missing);
	bool ok = text && fwrite(text, 1, length, stdout) == length && fflush(stdout) == 0;
	free(text);
	/* a process named that could not be asked is a failure, as for
	 * snapshot: the metrics printed lack it */
	return ok && !missing ? VT_EXIT_OK : VT_EXIT_FAILED;
}
