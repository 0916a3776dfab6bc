#include "control.h"

#include "state.h"
#include "writer.h"

/* A dump written to the client's socket. */
bool vt_library_control_snapshot(int fd, bool reset_peak, uint64_t deadline_ns)
{
	VT_TRACER_WORK();
	return vt_write(VT_WRITE_SNAPSHOT, "running",
			&(struct vt_write_to){
				.fd = fd, .reset_peak = reset_peak, .deadline_ns = deadline_ns});
}
