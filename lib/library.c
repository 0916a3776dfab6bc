#include "library.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/leaks.h"
#include "core/rules.h"
#include "core/stack_capture.h"
#include "core/tracker.h"
#include "log.h"
#include "report/output.h"
#include "report/report.h"
#include "sources/cupti.h"
#include "sources/driver_query.h"
#include "sources/graphs.h"
#include "sources/nvml_view.h"
#include "sources/pools.h"
#include "sources/signals.h"

static struct {
	atomic_bool active;
	atomic_bool disabled; /* a child after fork with VRAMTRACE_FOLLOW_FORK=0 */
	pthread_once_t once;
	struct vt_config config;
	struct vt_tracker tracker;
	struct vt_run run;
	char output_path[4096];
	bool output_ok;
	pthread_mutex_t describe_lock;
	atomic_bool described[VT_MAX_DEVICES];
	struct vt_device_info devices[VT_MAX_DEVICES];
	atomic_bool cuda_described;
	/* The file this process last wrote its report to: later versions
	 * (checkpoints, the final report) replace it. */
	pthread_mutex_t report_lock;
	char written[4096];
	atomic_bool have_written;
	atomic_bool final_written;
	atomic_bool stopping;
} library = {
	.once = PTHREAD_ONCE_INIT,
	.describe_lock = PTHREAD_MUTEX_INITIALIZER,
	.report_lock = PTHREAD_MUTEX_INITIALIZER,
};

static atomic_bool warned_output, warned_rules, warned_untracked, warned_unwinder,
	warned_checkpoint;

/* fork: every tracker lock is held across it so the child's copy is in a
 * known state; the child then forgets everything and starts inactive, as a
 * process that has not used CUDA yet (CUDA itself does not survive fork),
 * or stops tracing for good with VRAMTRACE_FOLLOW_FORK=0. */
static void lock_all(void)
{
	pthread_mutex_lock(&library.report_lock);
	for (int s = 0; s < VT_LEDGER_SHARDS; s++)
		pthread_mutex_lock(&library.tracker.ledger.shards[s].lock);
	for (int d = 0; d <= VT_MAX_DEVICES; d++)
		pthread_mutex_lock(&library.tracker.slots[d].lock);
	pthread_mutex_lock(&library.tracker.failures_lock);
}

static void unlock_all(void)
{
	pthread_mutex_unlock(&library.tracker.failures_lock);
	for (int d = VT_MAX_DEVICES; d >= 0; d--)
		pthread_mutex_unlock(&library.tracker.slots[d].lock);
	for (int s = VT_LEDGER_SHARDS - 1; s >= 0; s--)
		pthread_mutex_unlock(&library.tracker.ledger.shards[s].lock);
	pthread_mutex_unlock(&library.report_lock);
}

static void before_fork(void)
{
	if (atomic_load(&library.active))
		lock_all();
}

static void after_fork_in_parent(void)
{
	if (atomic_load(&library.active))
		unlock_all();
}

static void after_fork_in_child(void)
{
	if (!atomic_load(&library.active))
		return;
	vt_tracker_reset_unlocked(&library.tracker);
	pthread_mutex_init(&library.report_lock, NULL);
	free(library.run.command);
	library.run.command = NULL;
	atomic_store(&library.have_written, false);
	atomic_store(&library.final_written, false);
	atomic_store(&library.stopping, false);
	atomic_store(&library.active, false);
	atomic_store(&library.disabled, !library.config.follow_fork);
	vt_nvml_reset();
	vt_pools_reset();
	vt_graphs_reset();
	vt_cupti_reset();
	library.once = (pthread_once_t)PTHREAD_ONCE_INIT;
}

static void register_fork_handlers(void)
{
	static bool registered;
	if (!registered &&
	    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child) == 0)
		registered = true;
}

/* Configuration is read once, on the first CUDA call or NVTX range,
 * whichever comes first; an NVTX range alone makes no report. */
static void load_configuration(void)
{
	vt_config_load(&library.config);
	if (!vt_rules_init(library.config.rules))
		vt_warn_once(&warned_rules,
			     "VRAMTRACE_RULES '%s' is not pattern=tag;... nor a readable file of "
			     "them; using the built-in rules",
			     library.config.rules);
}

const struct vt_config *vt_library_config(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int saved_errno = errno;
	pthread_once(&once, load_configuration);
	errno = saved_errno;
	return &library.config;
}

static void start_checkpoints(void);

/* For the NVML sampler: a plain read, racing writers only by a sample. */
static uint64_t tracked_live(int device)
{
	return device >= 0 && device < VT_MAX_DEVICES
		       ? __atomic_load_n(&library.tracker.slots[device].stats.live,
					 __ATOMIC_RELAXED)
		       : 0;
}

static void activate(void)
{
	register_fork_handlers();
	vt_library_config();
	if (library.config.stack_depth && !vt_stack_capture_init((const void *)vt_library_activate))
		vt_warn_once(&warned_unwinder, "cannot load libunwind.so.8: allocations are "
					       "recorded without call stacks");
	struct vt_tracker_options options = {
		.oom_snapshots = library.config.oom_snapshots,
		.snapshot_top = library.config.top,
		.clock = vt_clock_ns,
	};
	vt_tracker_init(&library.tracker, &options);
	vt_run_start(&library.run, library.config.labels, library.config.redact_args);
	library.output_ok = vt_output_expand(library.config.output, library.run.pid,
					     library.run.host, library.run.rank,
					     library.output_path, sizeof(library.output_path));
	if (!library.output_ok)
		vt_warn_once(&warned_output,
			     "VRAMTRACE_OUTPUT '%s' expands to a path too long; the report goes to "
			     "standard error",
			     library.config.output);
	vt_signals_install();
	atomic_store(&library.active, true);
	vt_nvml_start(library.config.sample_ms, tracked_live, library.devices);
	start_checkpoints();
	/* Last: loading CUPTI may call into the driver, and those calls must
	 * find the library active. */
	vt_cupti_start(library.config.sources, library.tracker.start_ns);
}

void vt_library_activate(void)
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
		atomic_store(&library.described[device], true);
	}
	pthread_mutex_unlock(&library.describe_lock);
}

void vt_library_record(const struct vt_event *event)
{
	vt_library_activate();
	if (!atomic_load(&library.active))
		return; /* not following this fork */
	if (event->op != VT_OP_FREE)
		describe(event->device);
	if (!vt_tracker_record(&library.tracker, event))
		vt_warn_once(&warned_untracked,
			     "out of host memory for the ledger: counting continues, but some "
			     "frees will not be matched");
}

bool vt_library_retag(uint64_t address, uint16_t tag)
{
	if (!atomic_load(&library.active))
		return false;
	return vt_tracker_retag(&library.tracker, address, tag);
}

static bool write_report_json(int fd, void *context)
{
	return vt_report_write_json(context, fd);
}

static void note_written(const char *path)
{
	if (!library.config.report_list[0])
		return;
	FILE *list = fopen(library.config.report_list, "ae");
	if (!list)
		return;
	fprintf(list, "%s\n", path);
	fclose(list);
}

/* Writes report to this process's file: a new one the first time, the
 * same one replaced after that. Falls back to standard error. */
static bool put_report(struct vt_report *report)
{
	bool ok = false;
	if (atomic_load(&library.have_written)) {
		ok = vt_output_replace(library.written, write_report_json, report);
	} else if (library.output_ok) {
		ok = vt_output_write(library.output_path, write_report_json, report,
				     library.written, sizeof(library.written));
		if (ok) {
			atomic_store(&library.have_written, true);
			note_written(library.written);
		}
	}
	if (!ok) {
		vt_warn("cannot write the report to %s: %s; writing it to standard error instead",
			library.have_written ? library.written : library.output_path,
			strerror(errno));
		vt_report_write_json(report, STDERR_FILENO);
	}
	return ok;
}

/* The full report, from a snapshot and the live ledger. Called with the
 * report lock held. */
static bool write_report(const char *ended_by, bool summary)
{
	struct vt_snapshot *snapshot = malloc(sizeof(*snapshot));
	if (!snapshot) {
		vt_warn("out of host memory: no report written");
		return false;
	}
	vt_tracker_snapshot(&library.tracker, snapshot);
	struct vt_leaks leaks;
	if (!vt_leaks_collect(&library.tracker.ledger, &leaks))
		vt_warn("out of host memory: the report lists no leaks");
	vt_run_end(&library.run, ended_by);
	static struct vt_device_view views[VT_VIEW_DEVICES];
	struct vt_nvml_status nvml;
	vt_nvml_read(views, &nvml);
	static struct vt_pool_view pools[VT_MAX_POOLS];
	size_t pool_count = vt_pools_read(pools, VT_MAX_POOLS);
	static struct vt_graph_view graphs[VT_VIEW_DEVICES];
	vt_graphs_read(graphs);
	static struct vt_cupti_view cupti;
	vt_cupti_read(&cupti);
	struct vt_report report = {
		.run = &library.run,
		.snapshot = snapshot,
		.devices = library.devices,
		.leaks = &leaks,
		.top = library.config.top,
		.symbolizer = vt_symbolizer_open(),
		.views = views,
		.nvml = &nvml,
		.pools = pools,
		.pool_count = pool_count,
		.graphs = graphs,
		.cupti = &cupti,
	};
	bool ok = put_report(&report);
	if (summary) {
		if (ok)
			fprintf(stderr, "vramtrace: report written to %s\n", library.written);
		vt_report_write_summary(&report, stderr);
		fflush(stderr);
	}
	vt_symbolizer_close(report.symbolizer);
	vt_leaks_free(&leaks);
	vt_snapshot_free(snapshot);
	free(snapshot);
	return ok;
}

/* The report for good: at exit or before exec. */
static void write_final(const char *ended_by)
{
	pthread_mutex_lock(&library.report_lock);
	atomic_store(&library.stopping, true);
	vt_nvml_stop();
	if (!atomic_exchange(&library.final_written, true))
		write_report(ended_by, library.config.summary);
	pthread_mutex_unlock(&library.report_lock);
}

bool vt_library_dump(const char *path)
{
	vt_library_activate();
	if (!atomic_load(&library.active))
		return false;
	char expanded[4096], written[4096];
	if (!vt_output_expand(path ? path : library.config.output, library.run.pid,
			      library.run.host, library.run.rank, expanded, sizeof(expanded)))
		return false;
	struct vt_snapshot *snapshot = malloc(sizeof(*snapshot));
	if (!snapshot)
		return false;
	vt_tracker_snapshot(&library.tracker, snapshot);
	struct vt_leaks leaks;
	bool have_leaks = vt_leaks_collect(&library.tracker.ledger, &leaks);
	struct vt_run run = library.run;
	vt_run_end(&run, "running");
	struct vt_report report = {&run,
				   snapshot,
				   library.devices,
				   have_leaks ? &leaks : NULL,
				   library.config.top,
				   vt_symbolizer_open(),
				   false};
	bool ok = vt_output_write(expanded, write_report_json, &report, written, sizeof(written));
	vt_symbolizer_close(report.symbolizer);
	if (have_leaks)
		vt_leaks_free(&leaks);
	vt_snapshot_free(snapshot);
	free(snapshot);
	return ok;
}

/* VRAMTRACE_CHECKPOINT_S: a thread rewrites the report, so a process killed
 * by SIGKILL (or ended by _exit) leaves its last checkpoint behind. */
static void *checkpoint_loop(void *arg)
{
	(void)arg;
	for (;;) {
		struct timespec pause = {(time_t)library.config.checkpoint_s, 0};
		while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
			;
		pthread_mutex_lock(&library.report_lock);
		if (atomic_load(&library.stopping) || !atomic_load(&library.active)) {
			pthread_mutex_unlock(&library.report_lock);
			return NULL;
		}
		write_report("checkpoint", false);
		pthread_mutex_unlock(&library.report_lock);
	}
}

static void start_checkpoints(void)
{
	if (!library.config.checkpoint_s)
		return;
	pthread_t thread;
	pthread_attr_t attributes;
	pthread_attr_init(&attributes);
	pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
	/* The thread must not take the program's signals. */
	sigset_t all, previous;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &previous);
	if (pthread_create(&thread, &attributes, checkpoint_loop, NULL) != 0)
		vt_warn_once(&warned_checkpoint, "cannot start the checkpoint thread: %s",
			     strerror(errno));
	pthread_sigmask(SIG_SETMASK, &previous, NULL);
	pthread_attr_destroy(&attributes);
}

/* The emergency report: a signal handler may have interrupted anything,
 * malloc and every lock included, so it reads the tracker without locks
 * and writes with write(2) from static memory. */
void vt_library_emergency(int signal_number)
{
	static struct vt_snapshot snapshot;
	static atomic_bool written;
	if (!atomic_load(&library.active) || getpid() != library.run.pid ||
	    atomic_load(&library.final_written) || atomic_exchange(&written, true))
		return;
	vt_tracker_peek(&library.tracker, &snapshot);
	char ended_by[32] = "signal ";
	size_t at = strlen(ended_by);
	if (signal_number >= 10)
		ended_by[at++] = (char)('0' + signal_number / 10);
	ended_by[at++] = (char)('0' + signal_number % 10);
	ended_by[at] = '\0';
	vt_run_end(&library.run, ended_by);
	struct vt_report report = {
		&library.run, &snapshot, library.devices, NULL, library.config.top, NULL, true};
	bool ok = atomic_load(&library.have_written)
			  ? vt_output_replace(library.written, write_report_json, &report)
			  : library.output_ok &&
				    vt_output_write(library.output_path, write_report_json, &report,
						    library.written, sizeof(library.written));
	static const char done[] = "vramtrace: ended by a signal; report written\n";
	static const char failed[] = "vramtrace: ended by a signal; no report could be written\n";
	ssize_t ignored = ok ? write(STDERR_FILENO, done, sizeof(done) - 1)
			     : write(STDERR_FILENO, failed, sizeof(failed) - 1);
	(void)ignored;
}

void vt_library_before_exec(void)
{
	/* A vfork child shares our memory but is another process. */
	if (!atomic_load(&library.active) || getpid() != library.run.pid)
		return;
	int saved_errno = errno;
	write_final("exec");
	/* Should the exec fail, the process goes on, and so does its report. */
	atomic_store(&library.final_written, false);
	atomic_store(&library.stopping, false);
	errno = saved_errno;
}

/* -1 until the program's exit status is known. */
static atomic_int exit_status = -1;

void vt_library_note_exit(int status)
{
	int unknown = -1;
	atomic_compare_exchange_strong(&exit_status, &unknown, status & 0xff);
}

__attribute__((destructor)) static void library_exit(void)
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
