#include "checkpoints.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "../log.h"
#include "../sources/background.h"
#include "state.h"
#include "writer.h"

static atomic_bool warned_checkpoint;

static void *checkpoint_loop(void *arg)
{
	(void)arg;
	for (;;) {
		if (!vt_background_pause(vt_library.config.checkpoint_s * 1000u))
			return NULL; /* the program is gone; its exit writes the report */
		vt_tracer_busy++;
		pthread_mutex_lock(&vt_library.report_lock);
		bool go_on = !atomic_load(&vt_library.stopping) && atomic_load(&vt_library.active);
		if (go_on)
			vt_write(VT_WRITE_CHECKPOINT, "checkpoint", NULL);
		pthread_mutex_unlock(&vt_library.report_lock);
		if (vt_tracer_busy-- && !go_on)
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
