#include "devices.h"

#include <pthread.h>
#include <stdatomic.h>

#include "watermark.h"
#include "driver_query.h"
#include "tracking.h"

struct vt_device_info vt_devices[VT_MAX_DEVICES];
struct vt_cuda_info vt_devices_cuda;

static pthread_mutex_t describe_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool described[VT_MAX_DEVICES];
static atomic_bool cuda_described;
static struct vt_watermark_setting watermark;

static void apply_watermark(int device)
{
	vt_watermark_apply(&vt_tracking.tracker, &watermark, device, &vt_devices[device]);
}

void vt_devices_describe(int device)
{
	bool in_range = device >= 0 && device < VT_MAX_DEVICES;
	bool device_done = !in_range || atomic_load(&described[device]);
	if (device_done && atomic_load(&cuda_described))
		return;
	pthread_mutex_lock(&describe_lock);
	if (!atomic_load(&cuda_described)) {
		vt_driver_describe_cuda(&vt_devices_cuda);
		atomic_store(&cuda_described, true);
	}
	if (in_range && !atomic_load(&described[device])) {
		vt_driver_describe_device(device, &vt_devices[device]);
		apply_watermark(device);
		atomic_store(&described[device], true);
	}
	pthread_mutex_unlock(&describe_lock);
}

void vt_devices_watch(const struct vt_watermark_setting *setting)
{
	watermark = *setting;
	for (int device = 0; device < VT_MAX_DEVICES; device++)
		if (atomic_load(&described[device]))
			apply_watermark(device);
}
