/* fork: the tracer's locks are held across it, and the child forgets
 * what it inherited. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../control/endpoint.h"
#include "../core/stacks.h"
#include "../core/tags.h"
#include "../library/ending.h"
#include "../library/process_file.h"
#include "../library/state.h"
#include "../sources/background.h"
#include "../sources/cupti_view.h"
#include "../sources/graphs.h"
#include "../sources/nvml_view.h"
#include "../sources/pools.h"
#include "../sources/tracking.h"

/* The child forgets all, inactive (CUDA does not survive fork) or, with
 * VRAMTRACE_FOLLOW_FORK=0 or from a handler that interrupted the tracer
 * (none is taken then), for good. */
static bool held_for_fork; /* read and written with the locks held */

/* The tables of names and stacks first, as a report holds them inside the
 * report's and the tracker's locks. */
static void before_fork(void)
{
	vt_tags_fork_prepare();
	vt_stacks_fork_prepare();
	if (vt_tracer_busy || !atomic_load(&vt_tracking.active))
		return;
	pthread_mutex_lock(&vt_library.report_lock);
	vt_tracker_lock_all(&vt_tracking.tracker);
	held_for_fork = true;
}

static void after_fork_in_parent(void)
{
	if (!vt_tracer_busy && held_for_fork) {
		held_for_fork = false;
		vt_tracker_unlock_all(&vt_tracking.tracker);
		pthread_mutex_unlock(&vt_library.report_lock);
	}
	vt_stacks_fork_parent();
	vt_tags_fork_parent();
}

static void forget_in_child(void)
{
	held_for_fork = false;
	vt_tracker_reset_unlocked(&vt_tracking.tracker);
	pthread_mutex_init(&vt_library.report_lock, NULL);
	free(vt_library.run.command);
	vt_library.run.command = NULL;
}

static void after_fork_in_child(void)
{
	vt_stacks_fork_child();
	vt_tags_fork_child();
	if (!atomic_load(&vt_tracking.active))
		return;
	bool safe = !vt_tracer_busy;
	if (safe)
		forget_in_child();
	vt_process_file_forget();
	vt_ending_forget();
	atomic_store(&vt_library.stopping, false);
	atomic_store(&vt_tracking.active, false);
	atomic_store(&vt_tracking.disabled, !vt_library.config.follow_fork || !safe);
	vt_background_reset();
	vt_nvml_reset();
	vt_pools_reset();
	vt_graphs_reset();
	vt_cupti_reset();
	vt_control_forget_after_fork();
	vt_tracking.once = (pthread_once_t)PTHREAD_ONCE_INIT;
}

/* Registered as the library loads, before the program registers its own:
 * fork runs the prepare handlers last registered first, so the tracer takes
 * its locks after the program's prepare handlers ran (they may use CUDA,
 * which takes them too), and gives them back before the program's parent
 * and child handlers run, which may also. A process that never uses CUDA
 * pays, per fork, the tags' lock and the stack table's 64 shard locks taken
 * and given back (a microsecond or two, beside the fork's own hundreds). */
__attribute__((constructor)) static void register_fork_handlers(void)
{
	pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}
