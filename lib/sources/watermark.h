/* VRAMTRACE_WATERMARK between the configuration and the tracker: the marks
 * a device gets once its capacity is known, and the one line said the
 * first time one is reached. */
#pragma once

#include <stdint.h>

#include "../config.h"
#include "../core/tracker.h"
#include "../core/views.h"

/* Sets device's marks from setting (a percentage needs the capacity). */
void vt_watermark_apply(struct vt_tracker *tracker, const struct vt_watermark_setting *setting,
			int device, const struct vt_device_info *info);
/* A watermark was crossed (VT_RECORDED_WATERMARK): one warning, the first
 * time, with the figures of the first crossing recorded. Takes the
 * tracker's crossing lock; never with a device locked. */
void vt_watermark_warn(struct vt_tracker *tracker);
