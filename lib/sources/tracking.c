#include "tracking.h"

struct vt_tracking vt_tracking = {.once = PTHREAD_ONCE_INIT};

uint64_t vt_tracking_live(int device)
{
	return device >= 0 && device < VT_MAX_DEVICES
		       ? __atomic_load_n(&vt_tracking.tracker.slots[device].stats.live,
					 __ATOMIC_RELAXED)
		       : 0;
}
