#include "activation.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "../control/endpoint.h"
#include "../core/clock.h"
#include "../core/rules.h"
#include "../core/stack_capture.h"
#include "../core/thread_space.h"
#include "../descriptors.h"
#include "../library/checkpoints.h"
#include "../library/destination.h"
#include "../library/state.h"
#include "../library/writer.h"
#include "../lifecycle/signals.h"
#include "../log.h"
#include "../no_cancel.h"
#include "../sources/call.h"
#include "../sources/devices.h"
#include "../sources/nvml_view.h"
#include "../sources/python.h"
#include "../sources/tracking.h"
#include "cupti.h"
#include "dlsym.h"

static atomic_bool warned_rules, warned_unwinder;

/* The configuration is read once (config.c), on the first CUDA call or
 * NVTX range, whichever comes first; an NVTX range alone makes no report.
 * The library keeps a copy, and reads the rules, when it activates. */
static void load_configuration(void)
{
	vt_library.config = *vt_config();
	char shown[VT_WARN_TEXT_SIZE];
	if (!vt_rules_init(vt_library.config.rules))
		vt_warn_once(&warned_rules,
			     "VRAMTRACE_RULES '%s' is not pattern=tag;... nor a readable file of "
			     "them; using the built-in rules",
			     vt_warn_text(vt_library.config.rules, shown, sizeof(shown)));
	else if (vt_rules_left_out())
		vt_warn_once(&warned_rules,
			     "VRAMTRACE_RULES has more rules than the 1024 used; the last %u are "
			     "left out",
			     vt_rules_left_out());
}

static void prepare_stacks(void)
{
	const struct vt_config *config = &vt_library.config;
	if (config->stack_depth && !vt_stack_capture_init((const void *)vt_activate))
		vt_warn_once(&warned_unwinder, "cannot find glibc's backtrace: allocations are "
					       "recorded without call stacks");
	if (config->stack_depth)
		vt_write_prepare_symbols();
	if (config->stack_depth && config->python && vt_python_init(config->python_depth))
		vt_call_enable_python();
}

static void start_tracker(void)
{
	struct vt_tracker_options options = {
		.oom_snapshots = vt_library.config.oom_snapshots,
		.snapshot_top = vt_library.config.top,
		.history_bound = vt_library.config.history,
		.clock = vt_clock_ns,
		.coarse_clock = vt_clock_coarse_ns,
	};
	vt_tracker_init(&vt_tracking.tracker, &options);
	vt_devices_watch(&vt_library.config.watermark);
}

static void activate_here(void *unused)
{
	(void)unused;
	/* What activation opens and keeps (NVML's and
	 * CUPTI's files) stays off descriptors 0-2 a program closed. */
	unsigned filled = vt_low_fds_fill();
	load_configuration();
	prepare_stacks();
	start_tracker();
	vt_run_start(&vt_library.run, vt_library.config.labels, vt_library.config.redact_args);
	vt_destination_resolve();
	vt_signals_install();
	atomic_store(&vt_tracking.active, true);
	vt_dlopen_warn_deepbind();
	vt_nvml_start(vt_library.config.sample_ms);
	vt_checkpoints_start();
	if (vt_library.config.control)
		vt_control_start();
	/* Last: loading CUPTI may call into the driver, and those calls must
	 * find the tracer active. */
	vt_cupti_start(vt_library.config.sources, vt_tracking.tracker.start_ns);
	vt_low_fds_release(filled);
}

/* On the tracer's own stack: the first CUDA call may come on a thread of
 * 16 KiB, and reading the configuration alone copies more than that. */
static void activate(void)
{
	if (!vt_thread_run_on_own_stack(activate_here, NULL))
		activate_here(NULL);
}

void vt_activate(void)
{
	if (vt_tracking_active() ||
	    atomic_load_explicit(&vt_tracking.disabled, memory_order_relaxed))
		return;
	int saved_errno = errno;
	VT_NO_CANCEL();
	pthread_once(&vt_tracking.once, activate);
	errno = saved_errno;
}
