#define _GNU_SOURCE
#include "nvml_view.h"

#include "../core/thread_space.h"

#include "background.h"
#include "devices.h"
#include "tracking.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
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
	unsigned period_ms;
	atomic_bool running;
	pthread_t thread;
	bool joined; /* the sampler stopped, for a report that was to be the last */
	/* Devices whose latest tracked peak no reading has caught yet. */
	_Atomic uint64_t unread_peaks;
	/* The readings taken at a peak, by the first free after it: when the
	 * last was, and the tracked bytes each device's caught. The periodic
	 * readings stay out of these, so one that fell just before a peak
	 * never stands in for the peak's own. */
	_Atomic uint64_t last_peak_read_ns;
	_Atomic uint64_t peak_read_tracked[VT_VIEW_DEVICES];
	pthread_mutex_t wake_lock;
	pthread_cond_t wake;
} view = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.sampling = PTHREAD_MUTEX_INITIALIZER,
	.wake_lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
};

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
	const struct vt_device_info *info = &vt_devices[ordinal];
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
	uint64_t tracked = vt_tracking_live(d);
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

static uint64_t now_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Called with the sampling lock held. */
static void sample_devices(uint64_t devices)
{
	atomic_fetch_and(&view.unread_peaks, ~devices);
	for (int d = 0; d < VT_VIEW_DEVICES; d++)
		if ((devices & (1ull << d)) && vt_devices[d].known)
			sample_device(d);
}

static void sample(void)
{
	pthread_mutex_lock(&view.sampling);
	sample_devices(~0ull);
	pthread_mutex_unlock(&view.sampling);
}

static uint64_t now_ms(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

/* Until the period is over or a new tracked peak wants a reading, but one
 * reading a millisecond at most, so a long growth phase costs NVML a
 * thousand calls a second on this thread and none on the program's. False
 * when the program is gone. */
static bool wait_for_next_sample(void)
{
	struct timespec spacing = {0, 1000000};
	nanosleep(&spacing, NULL);
	uint64_t deadline = now_ms() + (view.period_ms > 1 ? view.period_ms - 1 : 0);
	pthread_mutex_lock(&view.wake_lock);
	while (!atomic_load(&view.unread_peaks) && atomic_load(&view.running)) {
		uint64_t now = now_ms();
		if (now >= deadline)
			break;
		uint64_t until = now + (deadline - now < 50 ? deadline - now : 50);
		struct timespec wake;
		clock_gettime(CLOCK_REALTIME, &wake);
		uint64_t ns = (uint64_t)wake.tv_nsec + (until - now) * 1000000;
		wake.tv_sec += (time_t)(ns / 1000000000);
		wake.tv_nsec = (long)(ns % 1000000000);
		pthread_cond_timedwait(&view.wake, &view.wake_lock, &wake);
		pthread_mutex_unlock(&view.wake_lock);
		if (vt_background_should_leave())
			return false;
		pthread_mutex_lock(&view.wake_lock);
	}
	pthread_mutex_unlock(&view.wake_lock);
	return true;
}

/* A peak left unread a millisecond after it was set is read here: the
 * first free after it usually read it first, at the peak itself. */
static void *sampler(void *arg)
{
	(void)arg;
	while (atomic_load(&view.running)) {
		sample();
		if (!wait_for_next_sample()) {
			atomic_store(&view.running, false); /* the program is gone */
			return NULL;
		}
		if (atomic_load(&view.unread_peaks)) {
			struct timespec grace = {0, 1000000};
			nanosleep(&grace, NULL);
		}
	}
	vt_background_done();
	return NULL;
}

void vt_nvml_note_peak(int device)
{
	uint64_t bit = 1ull << (device % VT_VIEW_DEVICES);
	if (!view.status.available ||
	    (atomic_load_explicit(&view.unread_peaks, memory_order_relaxed) & bit))
		return;
	bool first = atomic_fetch_or(&view.unread_peaks, bit) == 0;
	if (first && atomic_load_explicit(&view.running, memory_order_relaxed)) {
		pthread_mutex_lock(&view.wake_lock);
		pthread_cond_signal(&view.wake);
		pthread_mutex_unlock(&view.wake_lock);
	}
}

/* Worth a reading at a peak now: a millisecond since the last one, or a
 * peak 1/64 above what the last one caught, so a growth phase costs a few
 * dozen readings per doubling. */
static bool worth_reading(uint64_t unread)
{
	if (now_ns() - atomic_load(&view.last_peak_read_ns) >= 1000000)
		return true;
	for (int d = 0; d < VT_VIEW_DEVICES; d++) {
		uint64_t caught =
			atomic_load_explicit(&view.peak_read_tracked[d], memory_order_relaxed);
		if ((unread & (1ull << d)) && vt_tracking_live(d) > caught + caught / 64)
			return true;
	}
	return false;
}

/* On the tracer's own stack: NVML's calls, and the list of processes
 * they fill, take kilobytes, which the program's thread may not have. */
static void read_at_peak(void *unused)
{
	(void)unused;
	/* The sampler may be reading: its reading is short, and this one is
	 * the only one taken at the peak itself. */
	pthread_mutex_lock(&view.sampling);
	uint64_t unread = atomic_load(&view.unread_peaks);
	if (unread) {
		sample_devices(unread);
		atomic_store(&view.last_peak_read_ns, now_ns());
		for (int d = 0; d < VT_VIEW_DEVICES; d++)
			if (unread & (1ull << d))
				atomic_store_explicit(&view.peak_read_tracked[d],
						      vt_tracking_live(d), memory_order_relaxed);
	}
	pthread_mutex_unlock(&view.sampling);
}

void vt_nvml_before_free(void)
{
	uint64_t unread = atomic_load_explicit(&view.unread_peaks, memory_order_relaxed);
	if (unread && worth_reading(unread))
		vt_thread_run_on_own_stack(read_at_peak, NULL); /* none: no reading */
}

void vt_nvml_start(unsigned period_ms)
{
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
	pthread_mutex_lock(&view.wake_lock);
	pthread_cond_signal(&view.wake);
	pthread_mutex_unlock(&view.wake_lock);
	if (was_running) {
		pthread_join(view.thread, NULL);
		view.joined = true;
	}
	if (view.status.available)
		sample();
}

/* The exec the sampler was stopped for failed: the process goes on, and
 * so do the readings, as before it. */
void vt_nvml_resume(void)
{
	if (!view.joined)
		return;
	view.joined = false;
	atomic_store(&view.running, true);
	if (!vt_background_start(&view.thread, sampler))
		atomic_store(&view.running, false);
}

void vt_nvml_sample_now(void)
{
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
	pthread_mutex_init(&view.wake_lock, NULL);
	pthread_cond_init(&view.wake, NULL);
	atomic_store(&view.unread_peaks, 0);
	atomic_store(&view.running, false);
	view.joined = false;
	memset(view.views, 0, sizeof(view.views));
	memset(view.mapped, 0, sizeof(view.mapped));
}
