#define _GNU_SOURCE
#include "core/sink.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/rules.h"
#include "core/stack_capture.h"
#include "core/tracker.h"
#include "collect.h"
#include "control/endpoint.h"
#include "descriptors.h"
#include "lifecycle/signals.h"
#include "log.h"
#include "report/output.h"
#include "report/report.h"
#include "watermark.h"
#include "report/symbolize.h"
#include "sources/background.h"
#include "sources/call.h"
#include "interpose/cupti.h"
#include "sources/driver_query.h"
#include "sources/graphs.h"
#include "sources/nvml_view.h"
#include "sources/pools.h"
#include "sources/python.h"
#include "sources/real.h"

/* The final report: OPEN until one is being written, CLOSING while it is,
 * CLOSED once it is on disk. A signal that arrives meanwhile on another
 * thread waits for it rather than cut it short. */
enum { REPORT_OPEN, REPORT_CLOSING, REPORT_CLOSED };
static atomic_int final_state;
static atomic_int closing_thread;

static struct {
	atomic_bool active;
	atomic_bool disabled; /* a child after fork with VRAMTRACE_FOLLOW_FORK=0 */
	pthread_once_t once;
	struct vt_config config;
	struct vt_tracker tracker;
	struct vt_run run;
	char output_path[4096];
	bool output_ok;
	int output_errno; /* why output_path is not usable */
	pthread_mutex_t describe_lock;
	atomic_bool described[VT_MAX_DEVICES];
	struct vt_device_info devices[VT_MAX_DEVICES];
	atomic_bool cuda_described;
	/* The file this process last wrote its report to: later versions
	 * (checkpoints, the final report) replace it. */
	pthread_mutex_t report_lock;
	char written[4096];
	atomic_bool have_written;
	atomic_bool stopping;
} library = {
	.once = PTHREAD_ONCE_INIT,
	.describe_lock = PTHREAD_MUTEX_INITIALIZER,
	.report_lock = PTHREAD_MUTEX_INITIALIZER,
};

static void vt_library_activate(void);

static atomic_bool warned_dump, warned_output, warned_rules, warned_untracked, warned_unwinder,
	warned_checkpoint, warned_checkpoint_write;

/* fork: the locks are held across it; the child forgets all, inactive
 * (CUDA does not survive fork) or, with VRAMTRACE_FOLLOW_FORK=0 or from a
 * handler that interrupted the tracer (none is taken then), for good. */
static bool held_for_fork; /* read and written with the locks held */

static void before_fork(void)
{
	if (vt_tracer_busy || !atomic_load(&library.active))
		return;
	pthread_mutex_lock(&library.report_lock);
	vt_tracker_lock_all(&library.tracker);
	held_for_fork = true;
}

static void after_fork_in_parent(void)
{
	if (vt_tracer_busy || !held_for_fork)
		return;
	held_for_fork = false;
	vt_tracker_unlock_all(&library.tracker);
	pthread_mutex_unlock(&library.report_lock);
}

static void after_fork_in_child(void)
{
	if (!atomic_load(&library.active))
		return;
	bool safe = !vt_tracer_busy;
	if (safe) {
		held_for_fork = false;
		vt_tracker_reset_unlocked(&library.tracker);
		pthread_mutex_init(&library.report_lock, NULL);
		free(library.run.command);
		library.run.command = NULL;
	}
	atomic_store(&library.have_written, false);
	atomic_store(&final_state, REPORT_OPEN);
	atomic_store(&library.stopping, false);
	atomic_store(&library.active, false);
	atomic_store(&library.disabled, !library.config.follow_fork || !safe);
	vt_background_reset();
	vt_nvml_reset();
	vt_pools_reset();
	vt_graphs_reset();
	vt_cupti_reset();
	vt_control_forget_after_fork();
	library.once = (pthread_once_t)PTHREAD_ONCE_INIT;
}

static void register_fork_handlers(void)
{
	static bool registered;
	if (!registered &&
	    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child) == 0)
		registered = true;
}

/* The configuration is read once (config.c), on the first CUDA call or
 * NVTX range, whichever comes first; an NVTX range alone makes no report.
 * The library keeps a copy, and reads the rules, when it activates. */
static void load_configuration(void)
{
	library.config = *vt_config();
	if (!vt_rules_init(library.config.rules))
		vt_warn_once(&warned_rules,
			     "VRAMTRACE_RULES '%s' is not pattern=tag;... nor a readable file of "
			     "them; using the built-in rules",
			     library.config.rules);
	else if (vt_rules_left_out())
		vt_warn_once(&warned_rules,
			     "VRAMTRACE_RULES has more rules than the 1024 used; the last %u are "
			     "left out",
			     vt_rules_left_out());
}

static void start_checkpoints(void);
static void start_control(void);

/* For the NVML sampler: a plain read, racing writers only by a sample. */
static uint64_t tracked_live(int device)
{
	return device >= 0 && device < VT_MAX_DEVICES
		       ? __atomic_load_n(&library.tracker.slots[device].stats.live,
					 __ATOMIC_RELAXED)
		       : 0;
}

/* Where the report goes, said once when it cannot go where asked. With the
 * working directory removed before the first CUDA call, a relative
 * template has no place: it goes to $TMPDIR (or /tmp) instead. */
static const char *fallback_directory(void)
{
	const char *tmpdir = getenv("TMPDIR");
	return tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp";
}

/* template, expanded against directory (NULL: the working one); one that
 * names a directory takes default_name inside it. */
static bool expand_in(const char *directory, const char *template_path,
		      const char *default_template, char *out, size_t size)
{
	char default_name[256];
	return vt_output_expand_from(directory, template_path, library.run.pid, library.run.host,
				     library.run.rank, out, size) &&
	       vt_output_expand_from("/", default_template, library.run.pid, library.run.host,
				     library.run.rank, default_name, sizeof(default_name)) &&
	       vt_output_in_directory(out, size, default_name);
}

static bool expand_output(const char *directory)
{
	bool ok = expand_in(directory, library.config.output, VT_CONFIG_DEFAULT_OUTPUT,
			    library.output_path, sizeof(library.output_path));
	library.output_errno = ok ? 0 : errno;
	return ok;
}

static void resolve_output(void)
{
	library.output_ok = expand_output(NULL);
	if (library.output_ok)
		return;
	if (library.output_errno == ENAMETOOLONG) {
		vt_warn_once(&warned_output,
			     "VRAMTRACE_OUTPUT '%s' expands to a path longer than %zu bytes; no "
			     "report will be written",
			     library.config.output, sizeof(library.output_path) - 1);
		return;
	}
	int cwd_errno = library.output_errno;
	library.output_ok = expand_output(fallback_directory());
	if (library.output_ok)
		vt_warn_once(&warned_output,
			     "the working directory is gone (%s), so the relative VRAMTRACE_OUTPUT "
			     "'%s' has no place there; the report goes to %s instead",
			     strerror(cwd_errno), library.config.output, library.output_path);
	else
		vt_warn_once(&warned_output,
			     "the working directory is gone (%s), so the relative VRAMTRACE_OUTPUT "
			     "'%s' has no place there, nor in %s (%s); no report will be "
			     "written",
			     strerror(cwd_errno), library.config.output, fallback_directory(),
			     strerror(library.output_errno));
	if (!library.output_ok)
		library.output_errno = cwd_errno;
}

static void activate(void)
{
	/* What activation opens and keeps (NVML's and
	 * CUPTI's files) stays off descriptors 0-2 a program closed. */
	unsigned filled = vt_low_fds_fill();
	register_fork_handlers();
	load_configuration();
	if (library.config.stack_depth && !vt_stack_capture_init((const void *)vt_library_activate))
		vt_warn_once(&warned_unwinder, "cannot find glibc's backtrace: allocations are "
					       "recorded without call stacks");
	if (library.config.stack_depth)
		vt_symbolizer_prepare();
	if (library.config.stack_depth && library.config.python &&
	    vt_python_init(library.config.python_depth))
		vt_call_enable_python();
	struct vt_tracker_options options = {
		.oom_snapshots = library.config.oom_snapshots,
		.snapshot_top = library.config.top,
		.clock = vt_clock_ns,
		.coarse_clock = vt_clock_coarse_ns,
		.on_peak = vt_nvml_note_peak,
		.on_watermark = vt_watermark_note,
	};
	vt_tracker_init(&library.tracker, &options);
	/* A fork's child starts anew with the devices its parent described. */
	for (int device = 0; device < VT_MAX_DEVICES; device++)
		if (atomic_load(&library.described[device]))
			vt_watermark_apply(&library.tracker, &library.config.watermark, device,
					   &library.devices[device]);
	vt_run_start(&library.run, library.config.labels, library.config.redact_args);
	resolve_output();
	vt_signals_install();
	atomic_store(&library.active, true);
	vt_dlopen_warn_deepbind();
	vt_nvml_start(library.config.sample_ms, tracked_live, library.devices);
	start_checkpoints();
	start_control();
	/* Last: loading CUPTI may call into the driver, and those calls must
	 * find the library active. */
	vt_cupti_start(library.config.sources, library.tracker.start_ns);
	vt_low_fds_release(filled);
}

static bool vt_library_active(void)
{
	return atomic_load_explicit(&library.active, memory_order_acquire);
}

static void vt_library_activate(void)
{
	if (atomic_load_explicit(&library.active, memory_order_acquire) ||
	    atomic_load_explicit(&library.disabled, memory_order_relaxed))
		return;
	int saved_errno = errno;
	pthread_once(&library.once, activate);
	errno = saved_errno;
}

/* Names and capacities are asked of the driver on a device's first event,
 * while the driver is surely up, never at exit when it may be gone. */
static void describe(int device)
{
	bool in_range = device >= 0 && device < VT_MAX_DEVICES;
	bool device_done = !in_range || atomic_load(&library.described[device]);
	if (device_done && atomic_load(&library.cuda_described))
		return;
	pthread_mutex_lock(&library.describe_lock);
	if (!atomic_load(&library.cuda_described)) {
		vt_driver_describe_cuda(&library.run.cuda);
		atomic_store(&library.cuda_described, true);
	}
	if (in_range && !atomic_load(&library.described[device])) {
		vt_driver_describe_device(device, &library.devices[device]);
		vt_watermark_apply(&library.tracker, &library.config.watermark, device,
				   &library.devices[device]);
		atomic_store(&library.described[device], true);
	}
	pthread_mutex_unlock(&library.describe_lock);
}

/* Every event comes from inside a caught call, which activated the
 * library on entering (vt_call_enter): no second activation here. */
static void vt_library_record(const struct vt_event *event)
{
	if (!atomic_load(&library.active))
		return; /* not following this fork */
	vt_tracer_busy++;
	if (event->op != VT_OP_FREE)
		describe(event->device);
	else
		vt_nvml_before_free();
	if (!vt_tracker_record(&library.tracker, event))
		vt_warn_once(&warned_untracked,
			     "out of host memory for the ledger: counting continues, but some "
			     "frees will not be matched");
	vt_tracer_busy--;
}

static bool vt_library_retag(uint64_t address, uint32_t tag)
{
	if (!atomic_load(&library.active))
		return false;
	return vt_tracker_retag(&library.tracker, address, tag);
}

static void vt_library_each_live(void (*visit)(const struct vt_allocation *, void *), void *context)
{
	if (atomic_load(&library.active))
		vt_tracker_for_each_live(&library.tracker, visit, context);
}

static bool write_report_json(int fd, void *context)
{
	return vt_report_write_json(context, fd);
}

/* Tells `vramtrace run` where a report went: appended to the list it made,
 * never creating it (the run may be over) nor following a symlink. One
 * write(2), safe in a signal handler. */
static void note_written(const char *path)
{
	if (!library.config.report_list[0])
		return;
	int list = open(library.config.report_list, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (list < 0)
		return;
	char line[4097];
	size_t length = strlen(path);
	if (length < sizeof(line)) {
		memcpy(line, path, length);
		line[length] = '\n';
		ssize_t ignored = write(list, line, length + 1);
		(void)ignored;
	}
	close(list);
}

/* This process's file: a new one the first time, the same one replaced
 * after that. A file past RLIMIT_FSIZE or a closed pipe fails the write
 * and raises nothing. Safe in a signal handler when writer is. */
static bool put_file(vt_output_writer writer, void *context)
{
	struct vt_stderr_guard quiet;
	vt_quiet_begin(&quiet);
	bool ok;
	if (atomic_load(&library.have_written)) {
		ok = vt_output_replace(library.written, writer, context);
	} else if (!library.output_ok) {
		errno = library.output_errno;
		ok = false;
	} else {
		ok = vt_output_write(library.output_path, writer, context, library.written,
				     sizeof(library.written));
		if (ok) {
			atomic_store(&library.have_written, true);
			note_written(library.written);
		}
	}
	vt_quiet_end(&quiet); /* errno as the write left it */
	return ok;
}

/* A report that cannot be written is said in one line: the program's
 * standard error is its own, not the place for a whole document. */
static bool put_report(struct vt_report *report, bool final)
{
	if (put_file(write_report_json, report))
		return true;
	int error = errno;
	bool have_written = atomic_load(&library.have_written);
	if (!have_written && !library.output_ok)
		return false; /* said once already, on activation */
	const char *path = have_written ? library.written : library.output_path;
	if (final)
		vt_warn("cannot write the report to %s: %s; no report written", path,
			strerror(error));
	else
		vt_warn_once(&warned_checkpoint_write,
			     "cannot write a checkpoint to %s: %s; the final report will be tried "
			     "there again",
			     path, strerror(error));
	return false;
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
		fprintf(out, "vramtrace: report written to %s\n", library.written);
	vt_report_write_summary(report, out);
	/* What the program printed comes first, as it would without us: a
	 * reader such as `head` may stop at our lines, and the program's own
	 * flush at exit must not be the write that meets a closed pipe (not
	 * before exec, which drops what the program's buffers hold). */
	if (flush_program)
		fflush(NULL);
	if (fclose(out) == 0)
		vt_stderr_write(text, length);
	free(text);
}

static struct vt_collect_inputs collect_inputs(void)
{
	return (struct vt_collect_inputs){&library.tracker, &library.run, library.devices,
					  library.config.top, library.config.framework_cache_off};
}

/* A report of this moment while the program runs (a dump, a snapshot),
 * with a device reading of its own; NULL when out of memory. */
static struct vt_collection *collect_running(void)
{
	vt_nvml_sample_now();
	struct vt_collection *collection = vt_collection_new(VT_COLLECT_FULL);
	if (collection) {
		struct vt_collect_inputs inputs = collect_inputs();
		vt_collect(collection, &inputs, "running", VT_COLLECT_FULL);
	}
	return collection;
}

/* The full report to this process's file. Called with the report lock
 * held. */
static bool write_report(const char *ended_by, bool final, enum vt_collect_mode mode)
{
	struct vt_collection *collection = vt_collection_new(mode);
	if (!collection) {
		vt_warn("out of host memory: no report written");
		return false;
	}
	struct vt_collect_inputs inputs = collect_inputs();
	vt_collect(collection, &inputs, ended_by, mode);
	if (collection->report.left_out & VT_LEFT_OUT_LEAKS)
		vt_warn("out of host memory: the report lists no leaks");
	bool ok = put_report(&collection->report, final);
	if (final && library.config.summary)
		print_summary(&collection->report, ok, strcmp(ended_by, "exec") != 0);
	vt_collection_release(collection, mode);
	return ok;
}

static bool try_closing(void)
{
	int open = REPORT_OPEN;
	if (!atomic_compare_exchange_strong(&final_state, &open, REPORT_CLOSING))
		return false;
	atomic_store(&closing_thread, (int)gettid());
	return true;
}

/* The right to write: a report being written on another thread is waited
 * for (five seconds at most); when it was final, there is nothing to add. */
static bool begin_closing(void)
{
	if (try_closing())
		return true;
	for (int i = 0; i < 500 && atomic_load(&final_state) == REPORT_CLOSING &&
			atomic_load(&closing_thread) != (int)gettid();
	     i++) {
		struct timespec pause = {0, 10 * 1000 * 1000};
		nanosleep(&pause, NULL);
	}
	return try_closing();
}

static void write_unlocked(const char *ended_by, bool final);

/* An ending signal that came, on another thread, while this one wrote the
 * final report: its action is taken once the report is on disk, before the
 * process could exit with a status of its own. */
static atomic_int deferred_signal;

/* The report for good: at exit or before exec. The signals that end a
 * process wait until it is written. When this thread was interrupted inside
 * the tracer (exit() from a signal handler), the tracer's locks may be held
 * by this very thread, so the report is written as from a signal handler. */
static void write_final(const char *ended_by)
{
	sigset_t ending, previous;
	vt_signals_ending(&ending);
	pthread_sigmask(SIG_BLOCK, &ending, &previous);
	vt_control_remove(); /* a process about to end takes no more requests */
	/* Inside a CUDA call the driver's locks may be held: it is not asked. */
	bool ask_driver = !vt_call_in_progress();
	if (vt_tracer_busy) {
		write_unlocked(ended_by, true);
	} else {
		vt_tracer_busy++;
		pthread_mutex_lock(&library.report_lock);
		atomic_store(&library.stopping, true);
		vt_nvml_stop(ask_driver);
		if (begin_closing()) {
			write_report(ended_by, true,
				     ask_driver ? VT_COLLECT_FULL : VT_COLLECT_NO_DRIVER);
			atomic_store(&final_state, REPORT_CLOSED);
		}
		pthread_mutex_unlock(&library.report_lock);
		vt_tracer_busy--;
	}
	pthread_sigmask(SIG_SETMASK, &previous, NULL);
	int signal_number = atomic_exchange(&deferred_signal, 0);
	if (signal_number)
		vt_signals_take_default_action(signal_number);
}

/* "vramtrace.%p.json" dumps to "vramtrace.%p.dump1.json", then dump2...:
 * never the name the final report takes. expanded is a path already
 * expanded. */
static bool dump_name(const char *expanded, char *out, size_t size)
{
	static atomic_uint dumps;
	const char *slash = strrchr(expanded, '/');
	const char *dot = strrchr(expanded, '.');
	size_t stem =
		dot && (!slash || dot > slash + 1) ? (size_t)(dot - expanded) : strlen(expanded);
	if ((size_t)snprintf(out, size, "%.*s.dump%u%s", (int)stem, expanded,
			     atomic_fetch_add(&dumps, 1) + 1, expanded + stem) < size)
		return true;
	errno = ENAMETOOLONG;
	return false;
}

/* A dump's file: NULL or "" is the default dump name beside the report; a
 * path that ends in '/' or names a directory takes that name inside it. */
static bool dump_target(const char *path, char *out, size_t size)
{
	if (!path || !*path) {
		errno = library.output_errno;
		return library.output_ok && dump_name(library.output_path, out, size);
	}
	char name[4096], base[256];
	if (!vt_output_expand_from("/", VT_CONFIG_DEFAULT_OUTPUT, library.run.pid, library.run.host,
				   library.run.rank, base, sizeof(base)) ||
	    !dump_name(base, name, sizeof(name)))
		return false;
	const char *slash = strrchr(name, '/');
	return vt_output_expand(path, library.run.pid, library.run.host, library.run.rank, out,
				size) &&
	       vt_output_in_directory(out, size, slash ? slash + 1 : name);
}

static bool vt_library_dump(const char *path)
{
	vt_library_activate();
	if (!atomic_load(&library.active))
		return false;
	char expanded[4096], written[4096];
	if (!dump_target(path, expanded, sizeof(expanded))) {
		vt_warn_once(&warned_dump, "vramtrace_dump(\"%s\"): %s; no report written",
			     path ? path : "NULL",
			     errno == ENOENT ? "the working directory is gone, and the path is "
					       "relative to it"
					     : strerror(errno));
		return false;
	}
	vt_tracer_busy++;
	bool ok = false;
	struct vt_collection *collection = collect_running();
	if (collection) {
		struct vt_stderr_guard quiet;
		vt_quiet_begin(&quiet);
		ok = vt_output_write(expanded, write_report_json, &collection->report, written,
				     sizeof(written));
		vt_quiet_end(&quiet);
		if (!ok)
			vt_warn_once(&warned_dump,
				     "vramtrace_dump: cannot write the report to %s: %s", expanded,
				     errno == ENXIO ? "a FIFO no process has open for reading"
				     : errno == ENOTSUP
					     ? "a block device or a socket, never written to"
					     : strerror(errno));
		vt_collection_release(collection, VT_COLLECT_FULL);
	}
	vt_tracer_busy--;
	return ok;
}

static bool vt_library_window_begin(void)
{
	vt_library_activate();
	if (!atomic_load(&library.active))
		return false;
	vt_tracer_busy++;
	vt_tracker_window_begin(&library.tracker);
	vt_tracer_busy--;
	return true;
}

static long long vt_library_window_peak(char *where, size_t size)
{
	if (where && size)
		where[0] = '\0';
	struct vt_window_peak peak;
	if (!atomic_load(&library.active))
		return -1;
	vt_tracer_busy++;
	bool open = vt_tracker_window_peak(&library.tracker, &peak);
	if (open && where && size && peak.stack) {
		struct vt_symbolizer *symbolizer = vt_symbolizer_open();
		vt_report_describe_stack(symbolizer, peak.stack, where, size);
		vt_symbolizer_close(symbolizer);
	}
	vt_tracer_busy--;
	return open ? (long long)peak.bytes : -1;
}

/* VRAMTRACE_CHECKPOINT_S: a thread rewrites the report, so a process killed
 * by SIGKILL (or ended by _exit) leaves its last checkpoint behind. */
static void *checkpoint_loop(void *arg)
{
	(void)arg;
	for (;;) {
		if (!vt_background_pause(library.config.checkpoint_s * 1000u))
			return NULL; /* the program is gone; its exit writes the report */
		vt_tracer_busy++;
		pthread_mutex_lock(&library.report_lock);
		bool go_on = !atomic_load(&library.stopping) && atomic_load(&library.active);
		if (go_on)
			write_report("checkpoint", false, VT_COLLECT_FULL);
		pthread_mutex_unlock(&library.report_lock);
		if (vt_tracer_busy-- && !go_on)
			return NULL;
	}
}

static void start_checkpoints(void)
{
	if (!library.config.checkpoint_s)
		return;
	pthread_t thread;
	if (vt_background_start(&thread, checkpoint_loop))
		pthread_detach(thread);
	else
		vt_warn_once(&warned_checkpoint, "cannot start the checkpoint thread: %s",
			     strerror(errno));
}

/* A report of this moment for the control endpoint: a dump written to
 * the client's socket. */
static bool control_snapshot(int fd, bool reset_peak)
{
	vt_tracer_busy++;
	bool ok = false;
	struct vt_collection *collection = collect_running();
	if (collection) {
		if (reset_peak)
			vt_tracker_reset_interval(&library.tracker);
		ok = vt_report_write_json(&collection->report, fd);
		vt_collection_release(collection, VT_COLLECT_FULL);
	}
	vt_tracer_busy--;
	return ok;
}

static const struct vt_control_handlers control_handlers = {.snapshot = control_snapshot};

static void start_control(void)
{
	if (library.config.control)
		vt_control_start(&control_handlers);
}

/* The report written as from a signal handler, which may have interrupted
 * anything, malloc and every lock included: it waits only a bounded while
 * for the tracker's locks and writes with write(2) from static memory. A final one closes the
 * report; any other (the process may yet live on) is replaced by the next. */
static void write_unlocked(const char *ended_by, bool final)
{
	if (!atomic_load(&library.active) || getpid() != library.run.pid)
		return;
	if (final)
		vt_control_remove();
	if (!begin_closing())
		return;
	struct vt_collection *collection = vt_collection_new(VT_COLLECT_EMERGENCY);
	struct vt_collect_inputs inputs = collect_inputs();
	vt_collect(collection, &inputs, ended_by, VT_COLLECT_EMERGENCY);
	bool ok = put_file(write_report_json, &collection->report);
	static const char done[] = "vramtrace: ended by a signal; report written\n";
	static const char failed[] = "vramtrace: ended by a signal; no report could be written\n";
	/* The other threads wait from the snapshot until the report is
	 * written, so that it agrees with itself. */
	vt_collection_release(collection, VT_COLLECT_EMERGENCY);
	if (final)
		vt_stderr_write(ok ? done : failed, (ok ? sizeof(done) : sizeof(failed)) - 1);
	atomic_store(&final_state, final ? REPORT_CLOSED : REPORT_OPEN);
}

static void vt_library_emergency(int signal_number, bool final)
{
	if (final && atomic_load(&final_state) == REPORT_CLOSING &&
	    atomic_load(&closing_thread) != (int)gettid())
		atomic_store(&deferred_signal, signal_number);
	char ended_by[32] = "signal ";
	size_t at = strlen(ended_by);
	if (signal_number >= 10)
		ended_by[at++] = (char)('0' + signal_number / 10);
	ended_by[at++] = (char)('0' + signal_number % 10);
	ended_by[at] = '\0';
	write_unlocked(ended_by, final);
}

static void vt_library_before_exec(void)
{
	/* A vfork child shares our memory but is another process. */
	if (!atomic_load(&library.active) || getpid() != library.run.pid)
		return;
	int saved_errno = errno;
	write_final("exec");
	/* Should the exec fail, the process goes on, and so does its report. */
	atomic_store(&final_state, REPORT_OPEN);
	atomic_store(&library.stopping, false);
	errno = saved_errno;
}

/* -1 until the program's exit status is known. */
static atomic_int exit_status = -1;

static void vt_library_note_exit(int status)
{
	int unknown = -1;
	atomic_compare_exchange_strong(&exit_status, &unknown, status & 0xff);
}

static bool vt_library_ending(void)
{
	return atomic_load(&exit_status) >= 0;
}

__attribute__((destructor)) static void vt_library_finish(void)
{
	if (!atomic_load(&library.active) || getpid() != library.run.pid)
		return;
	int saved_errno = errno;
	char ended_by[32] = "exit";
	int status = atomic_load(&exit_status);
	if (status >= 0)
		snprintf(ended_by, sizeof(ended_by), "exit %d", status);
	write_final(ended_by);
	errno = saved_errno;
}

const struct vt_sink vt_sink = {
	.activate = vt_library_activate,
	.active = vt_library_active,
	.record = vt_library_record,
	.retag = vt_library_retag,
	.each_live = vt_library_each_live,
	.dump = vt_library_dump,
	.window_begin = vt_library_window_begin,
	.window_peak = vt_library_window_peak,
	.note_exit = vt_library_note_exit,
	.finish = vt_library_finish,
	.ending = vt_library_ending,
	.before_exec = vt_library_before_exec,
	.emergency = vt_library_emergency,
};
