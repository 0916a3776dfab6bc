#include "library.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/clock.h"
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

static atomic_bool warned_output;

/* fork: the tracker's lock is held across it so the child's copy is in a
 * known state; the child then forgets everything and starts inactive, as a
 * process that has not used CUDA yet (CUDA itself does not survive fork). */
static void before_fork(void)
{
	if (atomic_load(&library.active))
		pthread_mutex_lock(&library.tracker.lock);
}

static void after_fork_in_parent(void)
{
	if (atomic_load(&library.active))
		pthread_mutex_unlock(&library.tracker.lock);
}

static void after_fork_in_child(void)
{
	if (!atomic_load(&library.active))
		return;
	vt_ledger_clear(&library.tracker.ledger);
	pthread_mutex_init(&library.tracker.lock, NULL);
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

static void activate(void)
{
	register_fork_handlers();
	vt_config_load(&library.config);
	vt_tracker_init(&library.tracker, vt_clock_ns());
	vt_run_start(&library.run, library.config.labels);
	library.output_ok = vt_output_expand(library.config.output, library.run.pid,
					     library.run.host, library.run.rank,
					     library.output_path, sizeof(library.output_path));
	if (!library.output_ok)
		vt_warn_once(&warned_output,
			     "VRAMTRACE_OUTPUT '%s' expands to a path too long; "
			     "no report will be written",
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

static atomic_bool warned_untracked;

void vt_library_record(const struct vt_event *event)
{
	vt_library_activate();
	if (event->op != VT_OP_FREE)
		describe(event->device);
	if (!vt_tracker_record(&library.tracker, event, vt_clock_ns()))
		vt_warn_once(&warned_untracked,
			     "out of host memory for the ledger: counting continues, but some "
			     "frees will not be matched");
}

static void write_report_json(FILE *out, void *context)
{
	vt_report_write_json(context, out);
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

static void write_report(const char *ended_by)
{
	struct vt_snapshot *snapshot = malloc(sizeof(*snapshot));
	if (!snapshot) {
		vt_warn("out of host memory: no report written");
		return;
	}
	vt_tracker_snapshot(&library.tracker, snapshot, vt_clock_ns());
	vt_run_end(&library.run, ended_by);
	struct vt_report report = {&library.run, snapshot, library.devices};
	char written[4096] = "";
	bool ok = library.output_ok && vt_output_write(library.output_path, write_report_json,
						       &report, written, sizeof(written));
	if (library.output_ok && !ok)
		vt_warn("cannot write the report to %s: %s", library.output_path, strerror(errno));
	if (ok)
		note_written(written);
	if (library.config.summary) {
		if (ok)
			fprintf(stderr, "vramtrace: report written to %s\n", written);
		vt_report_write_summary(&report, stderr);
		fflush(stderr);
	}
	free(snapshot);
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
	write_report(ended_by);
	errno = saved_errno;
}
