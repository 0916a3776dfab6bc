#include "state.h"

#include <unistd.h>

#include "../sources/devices.h"

struct vt_library_state vt_library = {
	.report_lock = PTHREAD_MUTEX_INITIALIZER,
};

bool vt_library_traces_here(void)
{
	return atomic_load(&vt_tracking.active) && getpid() == vt_library.run.pid;
}

struct vt_collect_inputs vt_library_collect_inputs(void)
{
	return (struct vt_collect_inputs){
		&vt_tracking.tracker, &vt_library.run,       vt_devices,
		&vt_devices_cuda,     vt_library.config.top, vt_library.config.framework_cache_off};
}
