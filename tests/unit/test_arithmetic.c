/* A property test over the tool's arithmetic: check, diff and fit run in
 * this process (so the sanitized builds watch every operation) on reports
 * whose figures lie near 2^62, 2^63 and 2^64, with budgets, headrooms and
 * predictions there too. Every answer is an exact result, computed again
 * here in 128 bits, or exit 2 with a one-line reason; never a wrapped or
 * negative number. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

typedef unsigned __int128 u128;

static uint64_t state = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

/* Values near the edges: 2^62, 2^63, 2^64, and small ones. */
static uint64_t edge_value(void)
{
	static const uint64_t bases[] = {0, 1000, 1ull << 62, 1ull << 63, UINT64_MAX};
	uint64_t base = bases[next_random() % 5];
	int64_t offset = (int64_t)(next_random() % 5) - 2;
	return base + (uint64_t)offset; /* wraps near 0 and 2^64 on purpose */
}

struct captured {
	int status;
	char out[1 << 16], err[4096];
};

static void slurp(int fd, char *buffer, size_t size)
{
	lseek(fd, 0, SEEK_SET);
	ssize_t got = read(fd, buffer, size - 1);
	buffer[got > 0 ? got : 0] = '\0';
	close(fd);
}

/* Runs command in this process with stdout and stderr captured. */
static void capture(struct captured *c, int (*command)(int, char **), char **argv)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	char out_path[] = "/tmp/vt-arith-out.XXXXXX", err_path[] = "/tmp/vt-arith-err.XXXXXX";
	int out = mkstemp(out_path), err = mkstemp(err_path);
	cr_assert(out >= 0 && err >= 0);
	unlink(out_path);
	unlink(err_path);
	fflush(stdout);
	fflush(stderr);
	int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	c->status = command(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, STDOUT_FILENO);
	dup2(saved_err, STDERR_FILENO);
	close(saved_out);
	close(saved_err);
	slurp(out, c->out, sizeof(c->out));
	slurp(err, c->err, sizeof(c->err));
}

/* A report of count devices, each with a peak and one kind holding it,
 * its figures written as digits (as the tracer writes them). */
static void write_report(const char *path, const uint64_t *peaks, int count, int pid,
			 const char *batch)
{
	FILE *file = fopen(path, "w");
	cr_assert(file);
	fprintf(file,
		"{\"schema\": \"vramtrace/1\", \"run\": {\"command\": [\"x\"], \"labels\": "
		"{\"batch\": \"%s\"}, \"pid\": %d, \"host\": \"h\", \"start\": \"s\"}, "
		"\"host\": {\"peak\": {\"bytes\": 0, \"at_ns\": 0}, \"live_at_exit_bytes\": 0, "
		"\"live_at_exit_allocations\": 0, \"allocations\": 0, \"frees\": 0, "
		"\"failed_allocations\": 0, \"bytes_allocated\": 0, \"kinds\": [], \"tags\": [], "
		"\"stacks\": [], \"leaks\": [], \"failures\": []}, \"devices\": [",
		batch, pid);
	for (int d = 0; d < count; d++)
		fprintf(file,
			"%s{\"ordinal\": %d, \"peak\": {\"bytes\": %" PRIu64
			", \"at_ns\": 1}, \"live_at_exit_bytes\": 0, \"live_at_exit_allocations\": "
			"0, \"allocations\": 1, \"frees\": 1, \"failed_allocations\": 1, "
			"\"bytes_allocated\": 0, \"kinds\": [{\"kind\": \"device\", "
			"\"peak_bytes\": "
			"%" PRIu64 ", \"at_peak_bytes\": %" PRIu64
			", \"live_at_exit_bytes\": 0, \"allocations\": 1, \"frees\": 1, "
			"\"bytes_allocated\": 0}], \"tags\": [], \"stacks\": [], \"leaks\": [], "
			"\"failures\": [{\"bytes\": %" PRIu64
			", \"error\": 2, \"at_ns\": 1, \"live_bytes\": 0}]}",
			d ? ", " : "", d, peaks[d], peaks[d], peaks[d], edge_value());
	fputs("]}\n", file);
	fclose(file);
}

/* What the reader accepts for a held amount: below 2^62. */
static bool accepted(uint64_t value)
{
	return value < (1ull << 62);
}

static uint64_t printed_bytes(const char *text, const char *after)
{
	const char *at = strstr(text, after);
	cr_assert(at, "no '%s' in %s", after, text);
	at = strchr(at, '(');
	cr_assert(at);
	return strtoull(at + 1, NULL, 10);
}

Test(arithmetic, check_is_exact_near_every_edge)
{
	char path[] = "/tmp/vt-arith.XXXXXX";
	close(mkstemp(path));
	unsigned outcomes[3] = {0}; /* fits, does not fit, refused */
	for (int i = 0; i < 300; i++) {
		uint64_t peak = edge_value(), budget = edge_value();
		uint32_t headroom = (uint32_t)(next_random() % 3 == 0 ? 0 : next_random() % 10001);
		write_report(path, &peak, 1, 1, "1");
		char budget_text[32], headroom_text[32];
		snprintf(budget_text, sizeof(budget_text), "%" PRIu64, budget);
		snprintf(headroom_text, sizeof(headroom_text), "%u.%02u", headroom / 100,
			 headroom % 100);
		struct captured c;
		capture(&c, vt_command_check,
			(char *[]){"check", path, "--budget", budget_text, "--headroom",
				   headroom_text, NULL});
		if (!accepted(peak)) {
			cr_assert_eq(c.status, 2, "peak %" PRIu64 " read: %s", peak, c.out);
			cr_assert(strstr(c.err, "below 2^62"), "%s", c.err);
			outcomes[2]++;
			continue;
		}
		u128 usable = (u128)budget * (10000 - headroom), need = (u128)peak * 10000;
		bool fits = need <= usable;
		cr_assert_eq(c.status, fits ? 0 : 1, "peak %" PRIu64 " budget %" PRIu64 ": %s",
			     peak, budget, c.err);
		cr_assert_eq(printed_bytes(c.out, "peak "), peak);
		cr_assert_eq(printed_bytes(c.out, "budget "), budget);
		u128 gap = fits ? usable - need : need - usable;
		uint64_t margin = (uint64_t)((gap + (fits ? 0 : 9999)) / 10000);
		cr_assert_eq(printed_bytes(c.out, fits ? "margin " : "over by "), margin, "%s",
			     c.out);
		cr_assert_null(strstr(c.out, "-"), "a negative figure: %s", c.out);
		outcomes[fits ? 0 : 1]++;
	}
	unlink(path);
	cr_assert(outcomes[0] && outcomes[1] && outcomes[2], "%u %u %u", outcomes[0], outcomes[1],
		  outcomes[2]);
}

Test(arithmetic, diff_is_exact_or_refused)
{
	char a[] = "/tmp/vt-arith-a.XXXXXX", b[] = "/tmp/vt-arith-b.XXXXXX";
	close(mkstemp(a));
	close(mkstemp(b));
	unsigned exact = 0, refused = 0;
	for (int i = 0; i < 200; i++) {
		int count = 1 + (int)(next_random() % 4);
		uint64_t pa[4], pb[4];
		bool readable = true;
		u128 sum_a = 0, sum_b = 0;
		for (int d = 0; d < count; d++) {
			pa[d] = edge_value() % (1ull << 62);
			pb[d] = next_random() % 4 ? pa[d] : edge_value();
			readable = readable && accepted(pb[d]);
			sum_a += pa[d];
			sum_b += pb[d];
		}
		write_report(a, pa, count, 1, "1");
		write_report(b, pb, count, 2, "2");
		struct captured c;
		capture(&c, vt_command_diff, (char *[]){"diff", a, b, "--format", "json", NULL});
		if (!readable) {
			cr_assert_eq(c.status, 2);
			continue;
		}
		if (sum_a > INT64_MAX || sum_b > INT64_MAX) {
			cr_assert_eq(c.status, 2, "a sum past 2^63 was printed: %s", c.out);
			cr_assert(strstr(c.err, "adds up to more than 2^63-1 bytes"), "%s", c.err);
			refused++;
			continue;
		}
		cr_assert_eq(c.status, 0, "%s", c.err);
		json_t *diff = json_loads(c.out, 0, NULL);
		cr_assert(diff, "%s", c.out);
		json_t *kinds = json_object_get(
			json_object_get(json_object_get(diff, "sections"), "kind"), "rows");
		json_t *row = json_array_get(kinds, 0);
		cr_assert_eq((uint64_t)json_integer_value(json_object_get(row, "a_bytes")),
			     (uint64_t)sum_a);
		cr_assert_eq((uint64_t)json_integer_value(json_object_get(row, "b_bytes")),
			     (uint64_t)sum_b);
		cr_assert_eq(json_integer_value(json_object_get(row, "delta_bytes")),
			     (json_int_t)((__int128)sum_b - (__int128)sum_a));
		json_decref(diff);
		exact++;
	}
	cr_assert(exact && refused, "%u exact, %u refused", exact, refused);
	unlink(a);
	unlink(b);
}

Test(arithmetic, fit_answers_are_never_negative_or_wrapped)
{
	char paths[3][32];
	for (int r = 0; r < 3; r++) {
		snprintf(paths[r], sizeof(paths[r]), "/tmp/vt-arith-fit.XXXXXX");
		close(mkstemp(paths[r]));
	}
	static const char *const settings[] = {"1",      "1e6",    "1e12",  "4.6e18",
					       "9.3e18", "1.9e19", "-1e19", "1e300"};
	unsigned answered = 0, refused = 0;
	for (int i = 0; i < 120; i++) {
		uint64_t base = edge_value() % (1ull << 61), step = 1ull << (next_random() % 60);
		for (int r = 0; r < 3; r++) {
			uint64_t peak = base + step * (uint64_t)(r + 1);
			char batch[8];
			snprintf(batch, sizeof(batch), "%d", r + 1);
			write_report(paths[r], &peak, 1, 10 + r, batch);
		}
		char predict[64], budget[32];
		snprintf(predict, sizeof(predict), "batch=%s", settings[next_random() % 8]);
		snprintf(budget, sizeof(budget), "%" PRIu64, edge_value());
		struct captured c;
		bool solving = next_random() % 2;
		capture(&c, vt_command_fit,
			(char *[]){"fit", paths[0], paths[1], paths[2], "--format", "json",
				   solving ? "--budget" : "--predict", solving ? budget : predict,
				   solving ? "--solve" : NULL, "batch", NULL});
		if (c.status == 2) {
			cr_assert(strchr(c.err, '\n') && strstr(c.err, "vramtrace fit: "), "%s",
				  c.err);
			refused++;
			continue;
		}
		cr_assert_eq(c.status, 0, "%s", c.err);
		json_t *fit = json_loads(c.out, 0, NULL);
		cr_assert(fit, "%s", c.out);
		json_t *prediction = json_array_get(json_object_get(fit, "predictions"), 0);
		json_t *largest = json_object_get(fit, "largest_fit");
		json_t *peak = json_object_get(solving ? largest : prediction, "peak_bytes");
		cr_assert(json_is_null(peak) || json_integer_value(peak) >= 0, "%s", c.out);
		json_t *uncertainty = json_object_get(prediction, "uncertainty_bytes");
		cr_assert(!uncertainty || json_integer_value(uncertainty) >= 0, "%s", c.out);
		if (solving && !json_is_null(peak))
			cr_assert_leq((uint64_t)json_integer_value(peak),
				      strtoull(budget, NULL, 10),
				      "the answer's peak fits its budget: %s", c.out);
		json_decref(fit);
		answered++;
	}
	cr_assert(answered > 10 && refused > 10, "%u answered, %u refused", answered, refused);
	for (int r = 0; r < 3; r++)
		unlink(paths[r]);
}
