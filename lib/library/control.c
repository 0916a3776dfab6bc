#include "control.h"

#include "../control/endpoint.h"
#include "state.h"
#include "writer.h"

/* A dump written to the client's socket. */
static bool control_snapshot(int fd, bool reset_peak)
{
	VT_TRACER_WORK();
	return vt_write(VT_WRITE_SNAPSHOT, "running",
			&(struct vt_write_to){.fd = fd, .reset_peak = reset_peak});
}

static const struct vt_control_handlers control_handlers = {.snapshot = control_snapshot};

void vt_library_control_start(void)
{
	if (vt_library.config.control)
		vt_control_start(&control_handlers);
}
