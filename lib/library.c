#include "library.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/leaks.h"
#include "core/rules.h"
#include "core/stack_capture.h"
#include "core/tracker.h"
#include "log.h"
#include "report/output.h"
#include "report/report.h"
#include "sources/driver_query.h"

static struct {
	atomic_bool active;
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
} library = {
	.once = PTHREAD_ONCE_INIT,
	.describe_lock = PTHREAD_MUTEX_INITIALIZER,
};

static atomic_bool warned_output, warned_rules, warned_untracked, warned_unwinder;

/* fork: every tracker lock is held across it so the child's copy is in a
 * known state; the child then forgets everything and starts inactive, as a
 * process that has not used CUDA yet (CUDA itself does not survive fork). */
static void lock_all(void)
{
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
	free(library.run.command);
	library.run.command = NULL;
	atomic_store(&library.active, false);
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
			     "VRAMTRACE_RULES '%s' is not pattern=tag;... nor a "
			     "readable file of them; using the built-in rules",
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
	vt_run_start(&library.run, library.config.labels);
	library.output_ok = vt_output_expand(library.config.output, library.run.pid,
					     library.run.host, library.run.rank,
					     library.output_path, sizeof(library.output_path));
	if (!library.output_ok)
		vt_warn_once(&warned_output,
			     "VRAMTRACE_OUTPUT '%s' expands to a path too long; no report will be "
			     "written",
			     library.config.output);
	atomic_store(&library.active, true);
}

void vt_library_activate(void)
{
	if (atomic_load_explicit(&library.active, memory_order_acquire))
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

/* Builds the report from a snapshot and the live ledger, and writes it to
 * path (none when NULL); the summary goes to stderr when asked. */
static bool write_report(const char *path, const char *ended_by, bool summary)
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
	struct vt_report report = {
		.run = &library.run,
		.snapshot = snapshot,
		.devices = library.devices,
		.leaks = &leaks,
		.top = library.config.top,
		.symbolizer = vt_symbolizer_open(),
	};
	char written[4096] = "";
	bool ok =
		path && vt_output_write(path, write_report_json, &report, written, sizeof(written));
	if (path && !ok)
		vt_warn("cannot write the report to %s: %s", path, strerror(errno));
	if (ok)
		note_written(written);
	if (summary) {
		if (ok)
			fprintf(stderr, "vramtrace: report written to %s\n", written);
		vt_report_write_summary(&report, stderr);
		fflush(stderr);
	}
	vt_symbolizer_close(report.symbolizer);
	vt_leaks_free(&leaks);
	vt_snapshot_free(snapshot);
	free(snapshot);
	return ok;
}

bool vt_library_dump(const char *path)
{
	vt_library_activate();
	char expanded[4096];
	if (path && !vt_output_expand(path, library.run.pid, library.run.host, library.run.rank,
				      expanded, sizeof(expanded)))
		return false;
	if (!path && !library.output_ok)
		return false;
	return write_report(path ? expanded : library.output_path, "running", false);
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
	if (!atomic_load(&library.active))
		return;
	int saved_errno = errno;
	char ended_by[32] = "exit";
	int status = atomic_load(&exit_status);
	if (status >= 0)
		snprintf(ended_by, sizeof(ended_by), "exit %d", status);
	write_report(library.output_ok ? library.output_path : NULL, ended_by,
		     library.config.summary);
	errno = saved_errno;
}
