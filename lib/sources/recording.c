#include "recording.h"

#include <stdatomic.h>

#include "../log.h"
#include "watermark.h"
#include "devices.h"
#include "nvml_view.h"
#include "tracking.h"

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
		vt_watermark_warn(&vt_tracking.tracker);
}

void vt_record(const struct vt_event *event)
{
	if (!atomic_load(&vt_tracking.active))
		return; /* not following this fork */
	VT_TRACER_WORK();
	vt_devices_describe(event->device);
	unsigned outcome = vt_tracker_record(&vt_tracking.tracker, event);
	if (outcome)
		after_record(outcome, event);
}

void vt_record_free(uint64_t address, enum vt_kind family)
{
	if (!atomic_load(&vt_tracking.active))
		return;
	VT_TRACER_WORK();
	vt_nvml_before_free();
	vt_tracker_free(&vt_tracking.tracker, address, family);
}

void vt_record_before_giving_back(void)
{
	if (!atomic_load(&vt_tracking.active))
		return;
	VT_TRACER_WORK();
	vt_nvml_before_free();
}

bool vt_record_retag(uint64_t address, uint32_t tag)
{
	if (!atomic_load(&vt_tracking.active))
		return false;
	return vt_tracker_retag(&vt_tracking.tracker, address, tag);
}

void vt_record_each_live(void (*visit)(const struct vt_allocation *, void *), void *context)
{
	if (atomic_load(&vt_tracking.active))
		vt_tracker_for_each_live(&vt_tracking.tracker, visit, context);
}
