/* The devices, described once each: name and capacity, asked of the
 * driver on a device's first event, while the driver is surely up, never
 * at exit when it may be gone. */
#pragma once

/* Describes device (and the CUDA versions) unless done already. */
void vt_devices_describe(int device);
/* At activation: the watermarks of the devices described before (a fork's
 * child starts anew with the devices its parent described). */
void vt_devices_apply_watermarks(void);
