#include "watermark.h"

#include <stdatomic.h>

#include "../core/size.h"
#include "../log.h"

void vt_watermark_apply(struct vt_tracker *tracker, const struct vt_watermark_setting *setting,
			int device, const struct vt_device_info *info)
{
	uint64_t capacity = info->known ? info->capacity : 0;
	uint64_t high = vt_level_bytes(&setting->high, capacity);
	/* By default 90% of the mark, to the byte below: never high / 10 * 9,
	 * which drops up to 9 bytes more. */
	uint64_t low = setting->has_low ? vt_level_bytes(&setting->low, capacity)
					: (uint64_t)((unsigned __int128)high * 9 / 10);
	if (high)
		vt_tracker_set_watermark(tracker, device, high, low);
}

static atomic_bool warned;

void vt_watermark_warn(struct vt_tracker *tracker)
{
	struct vt_crossing first;
	if (atomic_load_explicit(&warned, memory_order_relaxed) ||
	    !vt_tracker_crossing(tracker, 0, &first))
		return;
	char live_text[32], mark_text[32];
	vt_size_format(first.live_bytes, live_text, sizeof(live_text));
	vt_size_format(first.watermark, mark_text, sizeof(mark_text));
	vt_warn_once(&warned,
		     "device %d reached the watermark: %s live (mark %s); what was live then is "
		     "in the report",
		     first.device, live_text, mark_text);
}
