/* Stand-in libnvidia-ml.so.1: the device-level view of the simulated device
 * as this process sees it (context plus allocations rounded to the
 * granularity), read from the stand-in driver when it is loaded. The toolkit
 * ships no nvml.h, so the types below follow NVML's documented layouts. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NVML_EXPORT __attribute__((visibility("default")))

typedef int nvmlReturn_t;
enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_NOT_FOUND = 6,
};

typedef struct nvmlDevice_st *nvmlDevice_t;

typedef struct {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_t;

typedef struct {
	unsigned int version;
	unsigned long long total;
	unsigned long long reserved;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_v2_t;

typedef struct {
	char busIdLegacy[16];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;

typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlProcessInfo_t;

#define SIM_NVML_DEVICES 16
struct nvmlDevice_st {
	int index;
};

static struct nvmlDevice_st devices[SIM_NVML_DEVICES];
/* NVML counts its initializations: each nvmlInit is undone by one
 * nvmlShutdown, and it shuts down only when the count reaches zero. */
static _Atomic unsigned initialized;

typedef int (*device_memory_fn)(int, uint64_t *, uint64_t *);

/* Reads the driver's view; a process with no driver loaded has no usage. */
static int device_memory(int index, uint64_t *used, uint64_t *total)
{
	void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	device_memory_fn read =
		driver ? (device_memory_fn)dlsym(driver, "vramsim_device_memory") : NULL;
	if (driver)
		dlclose(driver);
	if (read && read(index, used, total) == 0)
		return 0;
	*used = 0;
	*total = 80ull << 30;
	return 0;
}

static int device_count(void)
{
	const char *value = getenv("VRAMSIM_DEVICES");
	int count = value && *value ? atoi(value) : 1;
	return count < 0 ? 0 : count > SIM_NVML_DEVICES ? SIM_NVML_DEVICES : count;
}

NVML_EXPORT nvmlReturn_t nvmlInit_v2(void)
{
	for (int i = 0; i < SIM_NVML_DEVICES; i++)
		devices[i].index = i;
	atomic_fetch_add(&initialized, 1);
	return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
	(void)flags;
	return nvmlInit_v2();
}

NVML_EXPORT nvmlReturn_t nvmlShutdown(void)
{
	unsigned count = atomic_load(&initialized);
	do
		if (!count)
			return NVML_ERROR_UNINITIALIZED;
	while (!atomic_compare_exchange_weak(&initialized, &count, count - 1));
	return NVML_SUCCESS;
}

NVML_EXPORT const char *nvmlErrorString(nvmlReturn_t result)
{
	switch (result) {
	case NVML_SUCCESS: return "Success";
	case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
	case NVML_ERROR_NOT_FOUND: return "Not Found";
	case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
	default: return "Unknown Error";
	}
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	*count = (unsigned)device_count();
	return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	if (!device || index >= (unsigned)device_count())
		return NVML_ERROR_INVALID_ARGUMENT;
	*device = &devices[index];
	return NVML_SUCCESS;
}

static nvmlReturn_t check(nvmlDevice_t device)
{
	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	if (!device || device < devices || device >= devices + device_count())
		return NVML_ERROR_INVALID_ARGUMENT;
	return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
	nvmlReturn_t rc = check(device);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!name)
		return NVML_ERROR_INVALID_ARGUMENT;
	snprintf(name, length, "vramsim GPU %d", device->index);
	return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	nvmlReturn_t rc = check(device);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!memory)
		return NVML_ERROR_INVALID_ARGUMENT;
	uint64_t used, total;
	device_memory(device->index, &used, &total);
	memory->total = total;
	memory->used = used;
	memory->free = used < total ? total - used : 0;
	return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
	nvmlMemory_t v1;
	if (!memory)
		return NVML_ERROR_INVALID_ARGUMENT;
	nvmlReturn_t rc = nvmlDeviceGetMemoryInfo(device, &v1);
	if (rc != NVML_SUCCESS)
		return rc;
	memory->total = v1.total;
	memory->reserved = 0;
	memory->free = v1.free;
	memory->used = v1.used;
	return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	nvmlReturn_t rc = check(device);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	memset(pci, 0, sizeof(*pci));
	pci->bus = 0x10 + (unsigned)device->index;
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "0000:%02X:00.0", pci->bus);
	snprintf(pci->busId, sizeof(pci->busId), "00000000:%02X:00.0", pci->bus);
	return NVML_SUCCESS;
}

/* The calling process is the only one the simulated device knows. */
NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
								 unsigned int *count,
								 nvmlProcessInfo_t *infos)
{
	nvmlReturn_t rc = check(device);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	uint64_t used, total;
	device_memory(device->index, &used, &total);
	unsigned int present = used ? 1 : 0;
	if (*count < present) {
		*count = present;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*count = present;
	if (present) {
		if (!infos)
			return NVML_ERROR_INVALID_ARGUMENT;
		infos[0] = (nvmlProcessInfo_t){(unsigned)getpid(), used, 0xFFFFFFFFu, 0xFFFFFFFFu};
	}
	return NVML_SUCCESS;
}
