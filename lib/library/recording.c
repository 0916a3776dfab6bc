#include "recording.h"

#include <stdatomic.h>

#include "../log.h"
#include "../sources/nvml_view.h"
#include "../watermark.h"
#include "devices.h"
#include "state.h"

static atomic_bool warned_untracked;

/* What the tracker said happened, acted on once its locks are given back. */
static void after_record(unsigned outcome, const struct vt_event *event)
{
	if (outcome & VT_RECORDED_UNKEPT)
		vt_warn_once(&warned_untracked,
			     "out of host memory for the ledger: counting continues, but some "
			     "frees will not be matched");
	if (outcome & VT_RECORDED_PEAK)
		vt_nvml_note_peak(event->device);
	if (outcome & VT_RECORDED_WATERMARK)
		vt_watermark_warn(&vt_library.tracker);
}

/* Every event comes from inside a caught call, which activated the
 * library on entering (vt_call_enter): no second activation here. */
void vt_library_record(const struct vt_event *event)
{
	if (!atomic_load(&vt_library.active))
		return; /* not following this fork */
	VT_TRACER_WORK();
	if (event->op != VT_OP_FREE)
		vt_devices_describe(event->device);
	else
		vt_nvml_before_free();
	unsigned outcome = vt_tracker_record(&vt_library.tracker, event);
	if (outcome)
		after_record(outcome, event);
}

bool vt_library_retag(uint64_t address, uint32_t tag)
{
	if (!atomic_load(&vt_library.active))
		return false;
	return vt_tracker_retag(&vt_library.tracker, address, tag);
}

void vt_library_each_live(void (*visit)(const struct vt_allocation *, void *), void *context)
{
	if (atomic_load(&vt_library.active))
		vt_tracker_for_each_live(&vt_library.tracker, visit, context);
}
