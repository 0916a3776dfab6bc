/* Questions vramtrace asks the real driver itself, through pointers no hook
 * sees: which device is current, what a device is called and holds. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "../core/views.h"

/* The current context's device, or VT_UNKNOWN_DEVICE. */
int vt_driver_current_device(void);
void vt_driver_describe_device(int device, struct vt_device_info *out);
void vt_driver_describe_cuda(struct vt_cuda_info *out);

/* A device's current stream-ordered pool, or NULL. */
void *vt_driver_device_pool(int device);
/* A pool's figures from cuMemPoolGetAttribute; false if it cannot say. */
bool vt_driver_pool_figures(void *pool, struct vt_reserve_figures *out);
/* A device's graph memory from cuDeviceGetGraphMemAttribute; likewise. */
bool vt_driver_graph_figures(int device, struct vt_reserve_figures *out);

/* Whether stream is capturing (cuStreamIsCapturing, or its _ptsz flavour
 * for a per-thread-stream call); false when the driver cannot say. */
bool vt_driver_stream_capturing(void *stream, bool per_thread);

/* The device whose memory holds the allocation at address
 * (CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL), else VT_UNKNOWN_DEVICE. */
int vt_driver_pointer_device(uint64_t address);
/* The device of stream (cuStreamGetDevice; a default stream is the
 * current context's), else VT_UNKNOWN_DEVICE. */
int vt_driver_stream_device(void *stream);

/* The device a context belongs to (cuCtxGetDevice_v2), else
 * VT_UNKNOWN_DEVICE. */
int vt_driver_context_device(void *context);

/* The context the allocation holding address was made in
 * (CU_POINTER_ATTRIBUTE_CONTEXT); NULL when none or unknown. */
void *vt_driver_pointer_context(uint64_t address);
/* Whether the device's primary context is active (cuDevicePrimaryCtxGetState);
 * false when the driver cannot say. */
bool vt_driver_primary_active(int device);
/* The device's primary context while it is active, else NULL: retained and
 * released at once, so that an inactive one is never made. */
void *vt_driver_active_primary(int device);

/* The size of the allocation holding address, from cuMemGetAddressRange;
 * 0 if the driver cannot say. */
uint64_t vt_driver_allocation_size(uint64_t address);
