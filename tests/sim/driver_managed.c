/* Stand-in driver: managed memory's advice and prefetches. Nothing moves on
 * the simulated device, but the range must be managed memory and the
 * advice is kept for cuMemRangeGetAttribute. */
#include <string.h>

#include "sim.h"

#undef cuMemAdvise
CUresult cuMemAdvise(CUdeviceptr dptr, size_t count, CUmem_advise advice, CUdevice device);
#undef cuMemPrefetchAsync
CUresult cuMemPrefetchAsync(CUdeviceptr dptr, size_t count, CUdevice device, CUstream stream);

/* A location as a device ordinal, CU_DEVICE_CPU for the host. */
static bool location_device(CUmemLocation location, int *device)
{
	switch (location.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE: *device = location.id; return sim_valid_device(*device);
	case CU_MEM_LOCATION_TYPE_HOST:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: *device = CU_DEVICE_CPU; return true;
	default: return false;
	}
}

/* Advice and prefetches name a device or the host. */
static CUresult check_target(int device)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	return device == CU_DEVICE_CPU || sim_valid_device(device) ? CUDA_SUCCESS
								   : CUDA_ERROR_INVALID_DEVICE;
}

static CUresult advise(CUdeviceptr dptr, size_t count, CUmem_advise advice, int device)
{
	CUresult rc = check_target(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	pthread_mutex_lock(&sim_lock);
	struct sim_advice *kept = sim_managed_advice_locked(dptr, count);
	if (kept) {
		uint64_t bit = device >= 0 ? 1ull << device : 0;
		switch (advice) {
		case CU_MEM_ADVISE_SET_READ_MOSTLY: kept->read_mostly = true; break;
		case CU_MEM_ADVISE_UNSET_READ_MOSTLY: kept->read_mostly = false; break;
		case CU_MEM_ADVISE_SET_PREFERRED_LOCATION: kept->preferred = device; break;
		case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
			kept->preferred = CU_DEVICE_INVALID;
			break;
		case CU_MEM_ADVISE_SET_ACCESSED_BY: kept->accessed_by |= bit; break;
		case CU_MEM_ADVISE_UNSET_ACCESSED_BY: kept->accessed_by &= ~bit; break;
		default: kept = NULL;
		}
	}
	pthread_mutex_unlock(&sim_lock);
	return kept ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuMemAdvise_v2(CUdeviceptr dptr, size_t count, CUmem_advise advice,
				   CUmemLocation location)
{
	int device;
	return location_device(location, &device) ? advise(dptr, count, advice, device)
						  : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuMemAdvise(CUdeviceptr dptr, size_t count, CUmem_advise advice,
				CUdevice device)
{
	return advise(dptr, count, advice, device);
}

static CUresult prefetch(CUdeviceptr dptr, size_t count, int device)
{
	CUresult rc = check_target(device);
	if (rc != CUDA_SUCCESS)
		return rc;
	pthread_mutex_lock(&sim_lock);
	struct sim_advice *advice = sim_managed_advice_locked(dptr, count);
	if (advice)
		advice->last_prefetch = device;
	pthread_mutex_unlock(&sim_lock);
	return advice ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuMemPrefetchAsync_v2(CUdeviceptr dptr, size_t count, CUmemLocation location,
					  unsigned int flags, CUstream stream)
{
	(void)stream;
	int device;
	if (flags || !location_device(location, &device))
		return CUDA_ERROR_INVALID_VALUE;
	return prefetch(dptr, count, device);
}

SIM_EXPORT CUresult cuMemPrefetchAsync(CUdeviceptr dptr, size_t count, CUdevice device,
				       CUstream stream)
{
	(void)stream;
	return prefetch(dptr, count, device);
}

SIM_EXPORT CUresult cuMemRangeGetAttribute(void *data, size_t size, CUmem_range_attribute attribute,
					   CUdeviceptr dptr, size_t count)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!data)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	struct sim_advice *advice = sim_managed_advice_locked(dptr, count);
	struct sim_advice copy = advice ? *advice : (struct sim_advice){0};
	pthread_mutex_unlock(&sim_lock);
	if (!advice)
		return CUDA_ERROR_INVALID_VALUE;
	int value;
	switch (attribute) {
	case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY: value = copy.read_mostly; break;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION: value = copy.preferred; break;
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION: value = copy.last_prefetch; break;
	case CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY: {
		/* The devices advised, then CU_DEVICE_INVALID to fill the array. */
		size_t slots = size / sizeof(int), used = 0;
		for (int device = 0; device < SIM_MAX_DEVICES && used < slots; device++)
			if (copy.accessed_by & (1ull << device))
				((int *)data)[used++] = device;
		while (used < slots)
			((int *)data)[used++] = CU_DEVICE_INVALID;
		return CUDA_SUCCESS;
	}
	default: return CUDA_ERROR_INVALID_VALUE;
	}
	if (size != sizeof(int))
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(data, &value, sizeof(value));
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemRangeGetAttributes(void **data, size_t *sizes,
					    CUmem_range_attribute *attributes, size_t count,
					    CUdeviceptr dptr, size_t bytes)
{
	if (!data || !sizes || !attributes)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < count; i++) {
		CUresult rc = cuMemRangeGetAttribute(data[i], sizes[i], attributes[i], dptr, bytes);
		if (rc != CUDA_SUCCESS)
			return rc;
	}
	return CUDA_SUCCESS;
}
