#include "requests.h"

#include <stdatomic.h>

#include "../core/thread_space.h"
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

struct describe_call {
	uint32_t stack;
	char *where;
	size_t size;
};

static void describe(void *arg)
{
	struct describe_call *call = arg;
	struct vt_symbolizer *symbolizer = vt_symbolizer_open();
	vt_report_describe_stack(symbolizer, call->stack, call->where, call->size);
	vt_symbolizer_close(symbolizer);
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
		/* Naming the stack takes more than a small thread of the
		 * program's has (vt_write says why). */
		struct describe_call call = {peak.stack, where, size};
		if (!vt_run_on_mapped_stack(describe, &call, VT_DEEP_STACK_BYTES))
			describe(&call);
	}
	return open ? (long long)peak.bytes : -1;
}
