#include "driver_query.h"

#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "real.h"

typedef CUresult (*ctx_get_device_fn)(CUdevice *);
typedef CUresult (*device_get_name_fn)(char *, int, CUdevice);
typedef CUresult (*device_total_mem_fn)(size_t *, CUdevice);
typedef CUresult (*device_get_pci_bus_id_fn)(char *, int, CUdevice);
typedef CUresult (*device_get_uuid_fn)(CUuuid *, CUdevice);
typedef CUresult (*get_count_fn)(int *);
typedef CUresult (*get_version_fn)(int *);
typedef int (*runtime_version_fn)(int *);
typedef CUresult (*mem_get_address_range_fn)(CUdeviceptr *, size_t *, CUdeviceptr);
typedef CUresult (*graph_mem_attribute_fn)(CUdevice, CUgraphMem_attribute, void *);
typedef CUresult (*device_get_mem_pool_fn)(CUmemoryPool *, CUdevice);
typedef CUresult (*mem_pool_get_attribute_fn)(CUmemoryPool, CUmemPool_attribute, void *);

static void *driver_function(const char *name)
{
	void *driver = vt_driver_handle();
	return driver ? vt_real_dlsym(driver, name) : NULL;
}

int vt_driver_current_device(void)
{
	static ctx_get_device_fn get_device;
	if (!get_device)
		get_device = (ctx_get_device_fn)driver_function("cuCtxGetDevice");
	CUdevice device;
	if (!get_device || get_device(&device) != CUDA_SUCCESS)
		return VT_UNKNOWN_DEVICE;
	return device;
}

/* The device's UUID in nvidia-smi's and NVML's spelling; empty when the
 * driver does not say. */
static void describe_uuid(int device, char *out, size_t size)
{
	device_get_uuid_fn get_uuid = (device_get_uuid_fn)driver_function("cuDeviceGetUuid_v2");
	CUuuid uuid;
	out[0] = '\0';
	if (!get_uuid || get_uuid(&uuid, device) != CUDA_SUCCESS)
		return;
	const unsigned char *b = (const unsigned char *)uuid.bytes;
	snprintf(out, size,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
		 b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
		 b[14], b[15]);
}

void vt_driver_describe_device(int device, struct vt_device_info *out)
{
	memset(out, 0, sizeof(*out));
	device_get_name_fn get_name = (device_get_name_fn)driver_function("cuDeviceGetName");
	device_total_mem_fn total_mem = (device_total_mem_fn)driver_function("cuDeviceTotalMem_v2");
	device_get_pci_bus_id_fn bus_id =
		(device_get_pci_bus_id_fn)driver_function("cuDeviceGetPCIBusId");
	size_t capacity = 0;
	if (get_name && get_name(out->name, sizeof(out->name), device) != CUDA_SUCCESS)
		out->name[0] = '\0';
	if (total_mem && total_mem(&capacity, device) == CUDA_SUCCESS)
		out->capacity = capacity;
	if (bus_id && bus_id(out->pci_bus_id, sizeof(out->pci_bus_id), device) != CUDA_SUCCESS)
		out->pci_bus_id[0] = '\0';
	describe_uuid(device, out->uuid, sizeof(out->uuid));
	out->known = true;
}

void vt_driver_describe_cuda(struct vt_cuda_info *out)
{
	memset(out, 0, sizeof(*out));
	get_version_fn driver_version = (get_version_fn)driver_function("cuDriverGetVersion");
	get_count_fn device_count = (get_count_fn)driver_function("cuDeviceGetCount");
	if (driver_version && driver_version(&out->driver_version) != CUDA_SUCCESS)
		out->driver_version = 0;
	if (device_count && device_count(&out->device_count) != CUDA_SUCCESS)
		out->device_count = 0;
	/* A shared runtime answers by name; a static one is invisible here. */
	void *runtime = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
	runtime_version_fn runtime_version =
		runtime ? (runtime_version_fn)vt_real_dlsym(runtime, "cudaRuntimeGetVersion")
			: NULL;
	if (runtime_version && runtime_version(&out->runtime_version) != 0)
		out->runtime_version = 0;
	if (runtime)
		dlclose(runtime);
}

void *vt_driver_device_pool(int device)
{
	static device_get_mem_pool_fn get_pool;
	if (!get_pool)
		get_pool = (device_get_mem_pool_fn)driver_function("cuDeviceGetMemPool");
	CUmemoryPool pool;
	if (!get_pool || get_pool(&pool, device) != CUDA_SUCCESS)
		return NULL;
	return pool;
}

bool vt_driver_pool_figures(void *pool, struct vt_reserve_figures *out)
{
	static mem_pool_get_attribute_fn get_attribute;
	if (!get_attribute)
		get_attribute = (mem_pool_get_attribute_fn)driver_function("cuMemPoolGetAttribute");
	if (!get_attribute)
		return false;
	const struct {
		CUmemPool_attribute attribute;
		uint64_t *value;
	} wanted[] = {
		{CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &out->reserved},
		{CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &out->reserved_high},
		{CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &out->used},
		{CU_MEMPOOL_ATTR_USED_MEM_HIGH, &out->used_high},
	};
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		cuuint64_t value;
		if (get_attribute((CUmemoryPool)pool, wanted[i].attribute, &value) != CUDA_SUCCESS)
			return false;
		*wanted[i].value = value;
	}
	return true;
}

typedef CUresult (*stream_is_capturing_fn)(CUstream, CUstreamCaptureStatus *);

bool vt_driver_stream_capturing(void *stream, bool per_thread)
{
	static stream_is_capturing_fn is_capturing[2];
	if (!is_capturing[per_thread])
		is_capturing[per_thread] = (stream_is_capturing_fn)driver_function(
			per_thread ? "cuStreamIsCapturing_ptsz" : "cuStreamIsCapturing");
	CUstreamCaptureStatus status;
	return is_capturing[per_thread] &&
	       is_capturing[per_thread]((CUstream)stream, &status) == CUDA_SUCCESS &&
	       status != CU_STREAM_CAPTURE_STATUS_NONE;
}

typedef CUresult (*ctx_get_device_v2_fn)(CUdevice *, CUcontext);

int vt_driver_context_device(void *context)
{
	static ctx_get_device_v2_fn get_device;
	if (!get_device)
		get_device = (ctx_get_device_v2_fn)driver_function("cuCtxGetDevice_v2");
	CUdevice device;
	if (!get_device || get_device(&device, (CUcontext)context) != CUDA_SUCCESS)
		return VT_UNKNOWN_DEVICE;
	return device;
}

typedef CUresult (*pointer_get_attribute_fn)(void *, CUpointer_attribute, CUdeviceptr);
typedef CUresult (*primary_state_fn)(CUdevice, unsigned int *, int *);
typedef CUresult (*primary_retain_fn)(CUcontext *, CUdevice);
typedef CUresult (*primary_release_fn)(CUdevice);

int vt_driver_pointer_device(uint64_t address)
{
	static pointer_get_attribute_fn get_attribute;
	if (!get_attribute)
		get_attribute = (pointer_get_attribute_fn)driver_function("cuPointerGetAttribute");
	int device;
	if (!get_attribute || get_attribute(&device, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
					    (CUdeviceptr)address) != CUDA_SUCCESS)
		return VT_UNKNOWN_DEVICE;
	return device;
}

typedef CUresult (*stream_get_device_fn)(CUstream, CUdevice *);

int vt_driver_stream_device(void *stream)
{
	static stream_get_device_fn get_device;
	if (!get_device)
		get_device = (stream_get_device_fn)driver_function("cuStreamGetDevice");
	CUdevice device;
	if (!get_device || get_device((CUstream)stream, &device) != CUDA_SUCCESS)
		return VT_UNKNOWN_DEVICE;
	return device;
}

void *vt_driver_pointer_context(uint64_t address)
{
	static pointer_get_attribute_fn get_attribute;
	if (!get_attribute)
		get_attribute = (pointer_get_attribute_fn)driver_function("cuPointerGetAttribute");
	CUcontext context = NULL;
	if (!get_attribute || get_attribute(&context, CU_POINTER_ATTRIBUTE_CONTEXT,
					    (CUdeviceptr)address) != CUDA_SUCCESS)
		return NULL;
	return context;
}

bool vt_driver_primary_active(int device)
{
	static primary_state_fn get_state;
	if (!get_state)
		get_state = (primary_state_fn)driver_function("cuDevicePrimaryCtxGetState");
	unsigned int flags;
	int active = 0;
	return get_state && get_state(device, &flags, &active) == CUDA_SUCCESS && active;
}

void *vt_driver_active_primary(int device)
{
	primary_state_fn get_state =
		(primary_state_fn)driver_function("cuDevicePrimaryCtxGetState");
	primary_retain_fn retain = (primary_retain_fn)driver_function("cuDevicePrimaryCtxRetain");
	primary_release_fn release =
		(primary_release_fn)driver_function("cuDevicePrimaryCtxRelease_v2");
	unsigned int flags;
	int active = 0;
	CUcontext context = NULL;
	if (!get_state || !retain || !release ||
	    get_state(device, &flags, &active) != CUDA_SUCCESS || !active ||
	    retain(&context, device) != CUDA_SUCCESS)
		return NULL;
	release(device);
	return context;
}

uint64_t vt_driver_allocation_size(uint64_t address)
{
	static mem_get_address_range_fn address_range;
	if (!address_range)
		address_range =
			(mem_get_address_range_fn)driver_function("cuMemGetAddressRange_v2");
	size_t bytes;
	if (!address_range || address_range(NULL, &bytes, (CUdeviceptr)address) != CUDA_SUCCESS)
		return 0;
	return bytes;
}

bool vt_driver_graph_figures(int device, struct vt_reserve_figures *out)
{
	static graph_mem_attribute_fn get_attribute;
	if (!get_attribute)
		get_attribute =
			(graph_mem_attribute_fn)driver_function("cuDeviceGetGraphMemAttribute");
	if (!get_attribute)
		return false;
	const struct {
		CUgraphMem_attribute attribute;
		uint64_t *value;
	} wanted[] = {
		{CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, &out->reserved},
		{CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH, &out->reserved_high},
		{CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &out->used},
		{CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &out->used_high},
	};
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		cuuint64_t value;
		if (get_attribute(device, wanted[i].attribute, &value) != CUDA_SUCCESS)
			return false;
		*wanted[i].value = value;
	}
	return true;
}
