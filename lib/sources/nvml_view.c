#define _GNU_SOURCE
#include "nvml_view.h"

#include "background.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* NVML's types, as its header documents them (the CUDA toolkit ships none). */
typedef struct nvml_device *nvml_device_t;
struct nvml_memory {
	unsigned long long total, free, used;
};
struct nvml_pci_info {
	char bus_id_legacy[16];
	unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};
struct nvml_process_info {
	unsigned int pid;
	unsigned long long used_gpu_memory;
	unsigned int gpu_instance_id, compute_instance_id;
};
#define NVML_SUCCESS                 0
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define MAX_PROCESSES                256

struct nvml {
	int (*init)(void);
	int (*count)(unsigned int *);
	int (*handle)(unsigned int, nvml_device_t *);
	int (*pci)(nvml_device_t, struct nvml_pci_info *);
	int (*memory)(nvml_device_t, struct nvml_memory *);
	int (*processes)(nvml_device_t, unsigned int *, struct nvml_process_info *);
};

static struct {
	pthread_mutex_t lock;     /* the views */
	pthread_mutex_t sampling; /* one sampler at a time: NVML and the mapping */
	struct nvml nvml;
	struct vt_nvml_status status;
	struct vt_device_view views[VT_VIEW_DEVICES];
	nvml_device_t handles[VT_VIEW_DEVICES]; /* by CUDA ordinal, once mapped */
	bool mapped[VT_VIEW_DEVICES];
	vt_tracked_fn tracked;
	const struct vt_device_info *devices;
	unsigned period_ms;
	atomic_bool running;
	pthread_t thread;
} view = {.lock = PTHREAD_MUTEX_INITIALIZER, .sampling = PTHREAD_MUTEX_INITIALIZER};

static bool load(void)
{
	void *library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!library) {
		snprintf(view.status.reason, sizeof(view.status.reason), "no libnvidia-ml.so.1");
		return false;
	}
	void **slots[] = {(void **)&view.nvml.init,   (void **)&view.nvml.count,
			  (void **)&view.nvml.handle, (void **)&view.nvml.pci,
			  (void **)&view.nvml.memory, (void **)&view.nvml.processes};
	static const char *const names[] = {"nvmlInit_v2",
					    "nvmlDeviceGetCount_v2",
					    "nvmlDeviceGetHandleByIndex_v2",
					    "nvmlDeviceGetPciInfo_v3",
					    "nvmlDeviceGetMemoryInfo",
					    "nvmlDeviceGetComputeRunningProcesses_v3"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		*slots[i] = dlsym(library, names[i]);
		if (!*slots[i]) {
			snprintf(view.status.reason, sizeof(view.status.reason), "NVML lacks %s",
				 names[i]);
			return false;
		}
	}
	int rc = view.nvml.init();
	if (rc != NVML_SUCCESS) {
		snprintf(view.status.reason, sizeof(view.status.reason), "nvmlInit_v2 returned %d",
			 rc);
		return false;
	}
	return true;
}

/* "0000:10:00.0" and NVML's "00000000:10:00.0" name the same device: they
 * are compared as numbers, never as strings. */
static bool parse_bus_id(const char *text, unsigned *domain, unsigned *bus, unsigned *device)
{
	return sscanf(text, "%x:%x:%x", domain, bus, device) == 3;
}

static void map_device(int ordinal)
{
	const struct vt_device_info *info = &view.devices[ordinal];
	unsigned domain, bus, device, count = 0;
	if (!info->known || !parse_bus_id(info->pci_bus_id, &domain, &bus, &device) ||
	    view.nvml.count(&count) != NVML_SUCCESS)
		return;
	for (unsigned i = 0; i < count; i++) {
		nvml_device_t handle;
		struct nvml_pci_info pci;
		if (view.nvml.handle(i, &handle) != NVML_SUCCESS ||
		    view.nvml.pci(handle, &pci) != NVML_SUCCESS)
			continue;
		if (pci.domain == domain && pci.bus == bus && pci.device == device) {
			view.handles[ordinal] = handle;
			view.mapped[ordinal] = true;
			return;
		}
	}
}

/* This process's usage when NVML lists it, else the device's. */
static bool used_bytes(nvml_device_t handle, uint64_t *used, bool *per_process)
{
	struct nvml_process_info processes[MAX_PROCESSES];
	unsigned int count = MAX_PROCESSES;
	if (view.nvml.processes(handle, &count, processes) == NVML_SUCCESS) {
		for (unsigned i = 0; i < count; i++)
			if (processes[i].pid == (unsigned)getpid()) {
				*used = processes[i].used_gpu_memory;
				*per_process = true;
				return true;
			}
	}
	struct nvml_memory memory;
	if (view.nvml.memory(handle, &memory) != NVML_SUCCESS)
		return false;
	*used = memory.used;
	*per_process = false;
	return true;
}

/* The sample with the most tracked bytes stands for the tracked peak. NVML
 * is asked outside the view's lock, so a reader never waits on NVML. */
static void sample_device(int d)
{
	if (!view.mapped[d])
		map_device(d);
	uint64_t used;
	bool per_process;
	if (!view.mapped[d] || !used_bytes(view.handles[d], &used, &per_process))
		return;
	uint64_t tracked = view.tracked(d);
	pthread_mutex_lock(&view.lock);
	struct vt_device_view *v = &view.views[d];
	v->sampled = true;
	v->per_process = per_process;
	v->samples++;
	if (used > v->peak_used)
		v->peak_used = used;
	if (tracked >= v->tracked_at_best) {
		v->tracked_at_best = tracked;
		v->used_at_best = used;
	}
	pthread_mutex_unlock(&view.lock);
}

static void sample(void)
{
	pthread_mutex_lock(&view.sampling);
	for (int d = 0; d < VT_VIEW_DEVICES; d++)
		if (view.devices[d].known)
			sample_device(d);
	pthread_mutex_unlock(&view.sampling);
}

static void *sampler(void *arg)
{
	(void)arg;
	while (atomic_load(&view.running)) {
		sample();
		if (!vt_background_pause(view.period_ms))
			atomic_store(&view.running, false); /* the program is gone */
	}
	return NULL;
}

void vt_nvml_start(unsigned period_ms, vt_tracked_fn tracked, const struct vt_device_info *devices)
{
	view.tracked = tracked;
	view.devices = devices;
	view.period_ms = period_ms;
	view.status.available = load();
	if (!view.status.available || period_ms == 0)
		return;
	atomic_store(&view.running, true);
	if (!vt_background_start(&view.thread, sampler))
		atomic_store(&view.running, false);
}

void vt_nvml_stop(bool last_sample)
{
	bool was_running = atomic_exchange(&view.running, false);
	if (!last_sample)
		return;
	if (was_running)
		pthread_join(view.thread, NULL);
	if (view.status.available)
		sample();
}

void vt_nvml_read(struct vt_device_view *views, struct vt_nvml_status *status)
{
	pthread_mutex_lock(&view.lock);
	memcpy(views, view.views, sizeof(view.views));
	*status = view.status;
	pthread_mutex_unlock(&view.lock);
}

void vt_nvml_reset(void)
{
	pthread_mutex_init(&view.lock, NULL);
	pthread_mutex_init(&view.sampling, NULL);
	atomic_store(&view.running, false);
	memset(view.views, 0, sizeof(view.views));
	memset(view.mapped, 0, sizeof(view.mapped));
}
