/* The device-level view: what NVML says the device (or this process on it)
 * uses, sampled on a background thread so transient peaks are caught, set
 * beside what vramtrace tracked. Never creates a CUDA context; a machine
 * without NVML is noted, not an error. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "../core/views.h"

/* Starts sampling every period_ms (from activation). Each reading is paired
 * with the tracked live bytes (tracking.h) of a device described
 * (devices.h). */
void vt_nvml_start(unsigned period_ms);
/* The tracked peak of device rose. Cheap when a reading is already due. */
void vt_nvml_note_peak(int device);
/* A free is about to be recorded and forwarded: the last moment a peak
 * stands. A peak no reading caught is read now, one reading a millisecond
 * at most; one left unread is read by the sampler about a millisecond
 * later. */
void vt_nvml_before_free(void);
/* Stops the thread and, with last_sample, takes one last sample. Without
 * it nothing waits on NVML or the thread: the caller was interrupted inside
 * a CUDA call and may hold the driver's locks. */
void vt_nvml_stop(bool last_sample);
/* After vt_nvml_stop(true) for an exec that failed: sampling again. */
void vt_nvml_resume(void);
/* One reading now, where NVML is there: a report written while the
 * program runs (vramtrace_dump) takes its own, as the exit report does. */
void vt_nvml_sample_now(void);
/* What was seen so far. */
void vt_nvml_read(struct vt_device_view *views, struct vt_nvml_status *status);
/* Forgets everything, for the child after fork (the thread is gone). */
void vt_nvml_reset(void);
