#include "writer.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../collect.h"
#include "../core/thread_space.h"
#include "../descriptors.h"
#include "../log.h"
#include "../no_cancel.h"
#include "../report/output.h"
#include "../report/report.h"
#include "../report/symbolize.h"
#include "../sources/nvml_view.h"
#include "destination.h"
#include "process_file.h"
#include "state.h"

static const struct {
	enum vt_collect_mode mode;
	bool sample_first; /* a device reading of its own: the program runs on */
	bool own_file;     /* this process's file, said when it cannot be written */
} kinds[] = {
	[VT_WRITE_FINAL] = {VT_COLLECT_FULL, false, true},
	[VT_WRITE_FINAL_NO_DRIVER] = {VT_COLLECT_NO_DRIVER, false, true},
	[VT_WRITE_CHECKPOINT] = {VT_COLLECT_FULL, false, true},
	[VT_WRITE_DUMP] = {VT_COLLECT_FULL, true, false},
	[VT_WRITE_SNAPSHOT] = {VT_COLLECT_FULL, true, false},
	[VT_WRITE_SIGNAL] = {VT_COLLECT_EMERGENCY, false, false},
	[VT_WRITE_SIGNAL_SURVIVABLE] = {VT_COLLECT_EMERGENCY, false, false},
};

static atomic_bool warned_dump;

static bool is_final(enum vt_write_kind kind)
{
	return kind == VT_WRITE_FINAL || kind == VT_WRITE_FINAL_NO_DRIVER;
}

/* A dump's file from the path it was asked for, said once when there is
 * none. */
static bool dump_target(const char *path, char *out, size_t size)
{
	if (vt_destination_dump(path, out, size))
		return true;
	vt_warn_once(&warned_dump, "vramtrace_dump(\"%s\"): %s; no report written",
		     path ? path : "NULL",
		     errno == ENOENT ? "the working directory is gone, and the path is "
				       "relative to it"
				     : strerror(errno));
	return false;
}

static bool put_dump(const char *path, struct vt_report *report)
{
	char written[4096];
	struct vt_stderr_guard quiet;
	vt_quiet_begin(&quiet);
	bool ok = vt_output_write(path, vt_process_file_json, report, written, sizeof(written));
	vt_quiet_end(&quiet);
	if (!ok)
		vt_warn_once(&warned_dump, "vramtrace_dump: cannot write the report to %s: %s",
			     path, vt_output_reason(path, errno));
	return ok;
}

static bool put(enum vt_write_kind kind, struct vt_report *report, const struct vt_write_to *to)
{
	switch (kind) {
	case VT_WRITE_DUMP: return put_dump(to->path, report);
	case VT_WRITE_SNAPSHOT:
		if (to->reset_peak)
			vt_tracker_reset_interval(&vt_tracking.tracker);
		return vt_report_write_json_to_socket(report, to->fd, to->deadline_ns);
	case VT_WRITE_SIGNAL:
	case VT_WRITE_SIGNAL_SURVIVABLE: return vt_process_file_put(report);
	default:
		if (report->left_out & VT_LEFT_OUT_LEAKS)
			vt_warn("out of host memory: the report lists no leaks");
		return vt_process_file_put_or_say(report, is_final(kind));
	}
}

/* The program's standard output and error, flushed where no other thread
 * of the program holds them: one blocked reading stdin, or writing to a
 * full pipe, holds its stream's lock for as long as it waits, and
 * fflush(NULL), which takes every stream's lock, would wait with it for
 * ever (exit's own flush takes none). A stream held so is flushed by exit,
 * after our lines. */
static void flush_program_output(void)
{
	FILE *streams[] = {stdout, stderr};
	for (size_t i = 0; i < sizeof(streams) / sizeof(streams[0]); i++) {
		if (!streams[i] || ftrylockfile(streams[i]) != 0)
			continue;
		fflush_unlocked(streams[i]);
		funlockfile(streams[i]);
	}
}

/* The summary, rendered in memory and written by the one guarded path. */
static void print_summary(const struct vt_report *report, bool written, bool flush_program)
{
	char *text = NULL;
	size_t length = 0;
	FILE *out = open_memstream(&text, &length);
	if (!out)
		return;
	if (written)
		fprintf(out, "vramtrace: report written to %s\n", vt_process_file_written());
	vt_report_write_summary(report, out);
	/* What the program printed comes first, as it would without us: a
	 * reader such as `head` may stop at our lines, and the program's own
	 * flush at exit must not be the write that meets a closed pipe (not
	 * before exec, which drops what the program's buffers hold). */
	if (flush_program)
		flush_program_output();
	if (fclose(out) == 0)
		vt_stderr_write(text, length);
	free(text);
}

/* From static memory: a signal handler may have interrupted malloc. */
static void say_signal_report(bool ok)
{
	static const char done[] = "vramtrace: ended by a signal; report written\n";
	static const char failed[] = "vramtrace: ended by a signal; no report could be written\n";
	vt_stderr_write(ok ? done : failed, (ok ? sizeof(done) : sizeof(failed)) - 1);
}

static bool write_here(enum vt_write_kind kind, const char *why, const struct vt_write_to *to)
{
	char dump_path[4096];
	struct vt_write_to dump = {.path = dump_path};
	if (kind == VT_WRITE_DUMP) {
		if (!dump_target(to->path, dump_path, sizeof(dump_path)))
			return false;
		to = &dump;
	}
	enum vt_collect_mode mode = kinds[kind].mode;
	if (kinds[kind].sample_first)
		vt_nvml_sample_now();
	struct vt_collection *collection = vt_collection_new(mode);
	if (!collection) {
		if (kinds[kind].own_file)
			vt_warn("out of host memory: no report written");
		return false;
	}
	struct vt_collect_inputs inputs = vt_library_collect_inputs();
	vt_collect(collection, &inputs, why, mode);
	bool ok = put(kind, &collection->report, to);
	if (is_final(kind) && vt_library.config.summary)
		print_summary(&collection->report, ok, strcmp(why, "exec") != 0);
	/* An emergency's snapshot holds the other threads until the report
	 * is written, so that it agrees with itself. */
	vt_collection_release(collection, mode);
	if (kind == VT_WRITE_SIGNAL)
		say_signal_report(ok);
	return ok;
}

struct write_call {
	enum vt_write_kind kind;
	const char *why;
	const struct vt_write_to *to;
	bool ok;
};

static void write_call(void *arg)
{
	struct write_call *call = arg;
	call->ok = write_here(call->kind, call->why, call->to);
}

/* On a stack of the tracer's: the thread that asks may be the program's,
 * whose stack (a 32 KiB thread, the main thread under a low RLIMIT_STACK)
 * would overflow in libdw's line tables, and end the program by SIGSEGV
 * with its report lost. From a signal handler, the tracer's alternate
 * stack already holds the emergency report, which names no lines. */
bool vt_write(enum vt_write_kind kind, const char *why, const struct vt_write_to *to)
{
	VT_NO_CANCEL();
	struct write_call call = {kind, why, to, false};
	bool in_handler = kind == VT_WRITE_SIGNAL || kind == VT_WRITE_SIGNAL_SURVIVABLE;
	if (in_handler || !vt_run_on_mapped_stack(write_call, &call, VT_DEEP_STACK_BYTES))
		write_call(&call);
	return call.ok;
}

void vt_write_prepare_symbols(void)
{
	vt_symbolizer_prepare();
}
