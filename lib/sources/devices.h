/* The devices, described once each: name and capacity, asked of the
 * driver on a device's first event, while the driver is surely up, never
 * at exit when it may be gone; the CUDA versions with the first. The
 * library reads the descriptions for the report. */
#pragma once

#include "../config.h"
#include "../core/tracker.h"
#include "../core/views.h"

/* Filled in by vt_devices_describe; an entry is read once its device's
 * first event was recorded. */
extern struct vt_device_info vt_devices[VT_MAX_DEVICES];
extern struct vt_cuda_info vt_devices_cuda;

/* Describes device (and the CUDA versions) unless done already, and sets
 * its watermark. Takes a lock of its own; not from a signal handler. */
void vt_devices_describe(int device);
/* At activation: the watermark setting every device gets once described,
 * given now to those described before (a fork's child starts anew with the
 * devices its parent described). */
void vt_devices_watch(const struct vt_watermark_setting *setting);
