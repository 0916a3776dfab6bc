#include "requests.h"

#include <stdatomic.h>

#include "../report/report.h"
#include "../report/symbolize.h"
#include "state.h"
#include "writer.h"

bool vt_library_dump(const char *path)
{
	if (!atomic_load(&vt_tracking.active))
		return false;
	VT_TRACER_WORK();
	return vt_write(VT_WRITE_DUMP, "running", &(struct vt_write_to){.path = path});
}

bool vt_library_window_begin(void)
{
	if (!atomic_load(&vt_tracking.active))
		return false;
	VT_TRACER_WORK();
	vt_tracker_window_begin(&vt_tracking.tracker);
	return true;
}

long long vt_library_window_peak(char *where, size_t size)
{
	if (where && size)
		where[0] = '\0';
	struct vt_window_peak peak;
	if (!atomic_load(&vt_tracking.active))
		return -1;
	VT_TRACER_WORK();
	bool open = vt_tracker_window_peak(&vt_tracking.tracker, &peak);
	if (open && where && size && peak.stack) {
		struct vt_symbolizer *symbolizer = vt_symbolizer_open();
		vt_report_describe_stack(symbolizer, peak.stack, where, size);
		vt_symbolizer_close(symbolizer);
	}
	return open ? (long long)peak.bytes : -1;
}
