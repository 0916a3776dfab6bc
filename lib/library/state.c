#include "state.h"

#include <unistd.h>

struct vt_library_state vt_library = {
	.once = PTHREAD_ONCE_INIT,
	.report_lock = PTHREAD_MUTEX_INITIALIZER,
};

bool vt_library_traces_here(void)
{
	return atomic_load(&vt_library.active) && getpid() == vt_library.run.pid;
}

struct vt_collect_inputs vt_library_collect_inputs(void)
{
	return (struct vt_collect_inputs){&vt_library.tracker, &vt_library.run, vt_library.devices,
					  vt_library.config.top,
					  vt_library.config.framework_cache_off};
}
