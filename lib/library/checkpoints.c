#include "checkpoints.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "../log.h"
#include "../sources/background.h"
#include "state.h"
#include "writer.h"

static atomic_bool warned_checkpoint;

/* One checkpoint, unless the report is closing; false once it is. */
static bool write_checkpoint(void)
{
	VT_TRACER_WORK();
	pthread_mutex_lock(&vt_library.report_lock);
	bool go_on = !atomic_load(&vt_library.stopping) && atomic_load(&vt_tracking.active);
	if (go_on)
		vt_write(VT_WRITE_CHECKPOINT, "checkpoint", NULL);
	pthread_mutex_unlock(&vt_library.report_lock);
	return go_on;
}

static void *checkpoint_loop(void *arg)
{
	(void)arg;
	for (;;) {
		if (!vt_background_pause(vt_library.config.checkpoint_s * 1000u))
			return NULL; /* the program is gone; its exit writes the report */
		if (!write_checkpoint())
			return NULL;
	}
}

void vt_checkpoints_start(void)
{
	if (!vt_library.config.checkpoint_s)
		return;
	pthread_t thread;
	if (vt_background_start(&thread, checkpoint_loop))
		pthread_detach(thread);
	else
		vt_warn_once(&warned_checkpoint, "cannot start the checkpoint thread: %s",
			     strerror(errno));
}
