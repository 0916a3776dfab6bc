/* Stand-in driver: sharing stream-ordered pools between processes. A pool
 * created with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR exports as a file
 * descriptor naming it; importing one gives a pool that only imports
 * pointers. An exported pointer names its exporter, address, size and
 * device; importing it in another process maps a stand-in charged to the
 * exporter, which cuMemFree (or cuMemFreeAsync) ends. */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim.h"

#define SIM_POOL_MAGIC "vramsim-pool"

struct sim_shared {
	char magic[sizeof(SIM_POOL_MAGIC)];
	int32_t pid;
	int32_t device;
	uint64_t address;
	uint64_t bytes;
};

_Static_assert(sizeof(struct sim_shared) <= sizeof(CUmemPoolPtrExportData), "fits");

static bool named(const struct sim_shared *shared)
{
	return memcmp(shared->magic, SIM_POOL_MAGIC, sizeof(shared->magic)) == 0 &&
	       sim_valid_device(shared->device);
}

SIM_EXPORT CUresult cuMemPoolExportToShareableHandle(void *out, CUmemoryPool handle,
						     CUmemAllocationHandleType type,
						     unsigned long long flags)
{
	struct sim_pool *pool = sim_pool_of(handle);
	if (!out || !pool || flags != 0 || pool->imported)
		return CUDA_ERROR_INVALID_VALUE;
	if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || !(pool->handle_types & type))
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_shared shared = {
		.magic = SIM_POOL_MAGIC, .pid = getpid(), .device = pool->device};
	int fd = memfd_create("vramsim-pool", 0);
	if (fd < 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (write(fd, &shared, sizeof(shared)) != (ssize_t)sizeof(shared)) {
		close(fd);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*(int *)out = fd;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemPoolImportFromShareableHandle(CUmemoryPool *out, void *handle,
						       CUmemAllocationHandleType type,
						       unsigned long long flags)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_shared shared;
	int fd = (int)(intptr_t)handle;
	if (!out || flags != 0 || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR ||
	    pread(fd, &shared, sizeof(shared), 0) != (ssize_t)sizeof(shared) || !named(&shared))
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_pool *pool = sim_pool_add(shared.device, type, true);
	if (!pool)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*out = (CUmemoryPool)pool;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData *out, CUdeviceptr dptr)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	struct sim_pool *pool;
	size_t bytes;
	if (!out || !sim_pool_allocation((uintptr_t)dptr, &bytes, &pool) || !pool->handle_types)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_shared shared = {.magic = SIM_POOL_MAGIC,
				    .pid = getpid(),
				    .device = pool->device,
				    .address = dptr,
				    .bytes = bytes};
	memset(out, 0, sizeof(*out));
	memcpy(out->reserved, &shared, sizeof(shared));
	return CUDA_SUCCESS;
}

static CUresult untraced_cuMemPoolImportPointer(CUdeviceptr *dptr, CUmemoryPool handle,
						CUmemPoolPtrExportData *data)
{
	struct sim_pool *pool = sim_pool_of(handle);
	struct sim_shared shared;
	if (!dptr || !pool || !pool->imported || !data)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(&shared, data->reserved, sizeof(shared));
	if (!named(&shared) || shared.bytes == 0 || shared.device != pool->device)
		return CUDA_ERROR_INVALID_VALUE;
	void *at;
	CUresult rc = sim_map_foreign(&at, shared.bytes, shared.device);
	if (rc == CUDA_SUCCESS)
		*dptr = (CUdeviceptr)at;
	return rc;
}

SIM_EXPORT CUresult cuMemPoolImportPointer(CUdeviceptr *dptr, CUmemoryPool handle,
					   CUmemPoolPtrExportData *data)
{
	cuMemPoolImportPointer_params params = {dptr, handle, data};
	return SIM_TRACED(cuMemPoolImportPointer, &params,
			  untraced_cuMemPoolImportPointer(dptr, handle, data));
}
