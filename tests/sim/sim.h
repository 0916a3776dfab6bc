/* The simulated device shared by the stand-in driver's files: devices,
 * contexts and the allocations they hold. Nothing here is exported; the
 * driver's public functions are in driver_*.c. */
#pragma once

#include <cuda.h>
#include <cupti.h> /* ids and parameter structs for SIM_TRACED */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cupti_link.h"

#define SIM_EXPORT      __attribute__((visibility("default")))
#define SIM_MAX_DEVICES 16

/* Sizes no GPU and no process has: a request past this (a (size_t)-4 size
 * bug, say) fails with out of memory, whatever its kind, as the real
 * driver's does; 2^47 bytes is all the address space a process has. */
#define SIM_MAX_BYTES (1ull << 47)

/* Size arithmetic that saturates rather than wraps, so an absurd request
 * stays absurd and is refused. */
static inline uint64_t sim_round_up(uint64_t value, uint64_t multiple)
{
	uint64_t rest = value % multiple;
	if (!rest)
		return value;
	return value > UINT64_MAX - (multiple - rest) ? UINT64_MAX : value + (multiple - rest);
}

static inline uint64_t sim_multiply(uint64_t a, uint64_t b)
{
	uint64_t product;
	return __builtin_mul_overflow(a, b, &product) ? UINT64_MAX : product;
}

static inline uint64_t sim_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* What every simulated device (a Hopper GPU, compute capability 9.0) can
 * run at once, as the real one reports it. */
#define SIM_MULTIPROCESSORS            132
#define SIM_THREADS_PER_BLOCK          1024
#define SIM_THREADS_PER_MULTIPROCESSOR 2048
#define SIM_BLOCKS_PER_MULTIPROCESSOR  32
#define SIM_SHARED_PER_BLOCK           49152  /* without opting in */
#define SIM_SHARED_PER_BLOCK_OPTIN     232448 /* 227 KiB */
#define SIM_SHARED_PER_MULTIPROCESSOR  233472 /* 228 KiB */
#define SIM_SHARED_RESERVED            1024   /* per block, by the system */

enum sim_memory {
	SIM_MEMORY_DEVICE,
	SIM_MEMORY_MANAGED,
	SIM_MEMORY_HOST,
	SIM_MEMORY_REGISTERED, /* the program's own host memory, page-locked */
	SIM_MEMORY_IMPORTED,   /* another process's device memory, by IPC */
	SIM_MEMORY_FOREIGN,    /* allocated elsewhere (another API, another process's
				* pool); cuMemFree ends it */
};

/* Managed memory's advice, as the range attributes read it back: locations
 * are devices, CU_DEVICE_CPU or CU_DEVICE_INVALID. */
struct sim_advice {
	bool read_mostly;
	int preferred, last_prefetch;
	uint64_t accessed_by; /* a bit per device */
};

struct sim_context {
	int device;
	bool primary;
	bool live;
	unsigned refcount;
	unsigned cache_config;    /* cuCtxSetCacheConfig's preference */
	struct sim_context *next; /* in the list of created contexts */
};

/* A stream-ordered pool: what its allocations use, and what it keeps
 * reserved (up to the release threshold after frees, until trimmed). */
struct sim_pool {
	int device;
	bool live;
	int reuse[3];          /* the three CU_MEMPOOL_ATTR_REUSE_* flags */
	unsigned handle_types; /* what it may be exported as */
	bool imported;         /* another process's pool: only imports pointers */
	/* What each other device may do with its memory (its own device
	 * always reads and writes). */
	CUmemAccess_flags access[SIM_MAX_DEVICES];
	uint64_t used, used_high, reserved, reserved_high, threshold;
	/* The devices whose streams freed its memory since its last trim
	 * (one bit each): their next synchronize trims it too. */
	unsigned freed_on;
	struct sim_pool *next; /* in the list of created pools */
};

struct sim_device {
	uint64_t capacity;
	uint64_t charged;  /* allocation bytes rounded to the granularity */
	unsigned contexts; /* live contexts; the first one costs context_bytes */
	struct sim_context primary;
	unsigned primary_flags; /* cuDevicePrimaryCtxSetFlags' */
	struct sim_pool default_pool;
	struct sim_pool *current_pool; /* cuDeviceSetMemPool's, else the default */
	/* Memory of graph allocation nodes: live while allocated by a launch;
	 * reserved (and charged) and mapped for graphs ("used", as
	 * cuDeviceGetGraphMemAttribute reads it) from then on, after the
	 * graphs' frees too, until cuDeviceGraphMemTrim. */
	uint64_t graph_live, graph_used, graph_used_high, graph_reserved, graph_reserved_high;
};

/* What a simulated device reports of itself beyond its memory: the GPU
 * whose figures it takes (VRAMSIM_PROFILE). */
struct sim_profile {
	const char *name; /* as VRAMSIM_PROFILE names it */
	uint64_t capacity;
	int memory_clock_khz;
	int memory_bus_bits;
	int l2_bytes;
};

struct sim_config {
	const struct sim_profile *profile;
	int device_count;
	uint64_t capacity[SIM_MAX_DEVICES];
	uint64_t context_bytes;
	uint64_t granularity;
	/* NVML's used bytes beyond the driver's, per device with a context */
	uint64_t hidden_bytes;
	bool valid; /* false after a bad VRAMSIM_* value: every call fails */
};

/* Reads VRAMSIM_* once; prints one clear error per bad variable. */
const struct sim_config *sim_config(void);

extern pthread_mutex_t sim_lock;
extern struct sim_device sim_devices[SIM_MAX_DEVICES];

/* Fails with CUDA_ERROR_NOT_INITIALIZED until cuInit succeeded. */
CUresult sim_check_init(void);
/* sim_check_init, then CUDA_ERROR_INVALID_DEVICE for a bad ordinal. */
CUresult sim_check_device(CUdevice device);
/* The context behind a handle, or NULL where it names none made here. */
struct sim_context *sim_context_of(CUcontext handle);
/* The calling thread's current context, or NULL. */
struct sim_context *sim_current_context(void);
/* Ends every allocation (driver_memory.c) and every array (driver_array.c)
 * made in context. */
void sim_memory_context_ended(const struct sim_context *context);
void sim_arrays_context_ended(const struct sim_context *context);
/* CUDA_SUCCESS with the current context's device in *device. */
CUresult sim_current_device(int *device);
uint64_t sim_device_used(int device);
/* Whether a kernel may be launched so (driver_module.c): the checks a
 * real GPU makes, CUDA_ERROR_INVALID_HANDLE or CUDA_ERROR_INVALID_VALUE. */
CUresult sim_launch_check(CUfunction function, const unsigned grid[3], const unsigned block[3],
			  unsigned shared_bytes);
/* The flags a (valid) event was created with. */
unsigned sim_event_flags(CUevent event);
/* The SM architecture machine code must be built for: 90 for 9.0. */
unsigned sim_device_arch(int device);
/* The pool behind a handle, or NULL; never follows a bad handle. */
struct sim_pool *sim_pool_of(CUmemoryPool handle);
/* Called with sim_lock held. A pool's reserve is what the device has
 * charged for it: growth is what an allocation of charge adds to it. */
uint64_t sim_pool_growth(const struct sim_pool *pool, uint64_t charge);
void sim_pool_take(struct sim_pool *pool, uint64_t charge);
/* Returns the bytes the pool hands back to the device: none while it
 * lives (its reserve waits for a synchronize), all it no longer uses once
 * destroyed. */
uint64_t sim_pool_give_back(struct sim_pool *pool, uint64_t charge);
/* A stream, event or context of device synchronized: each pool of that
 * device, and each freed into from it, keeps at most max(in use, release
 * threshold) reserved. */
void sim_pools_synchronized(int device);
/* A created pool, or another process's imported one; NULL without memory. */
struct sim_pool *sim_pool_add(int device, unsigned handle_types, bool imported);
/* A device's pools start out as its default one, current. */
void sim_pool_init_device(int device);
bool sim_valid_device(int device);
/* An IPC import: a local stand-in for another process's allocation,
 * charged to no one here, ended only by sim_close_import. */
CUresult sim_import(void **out, size_t bytes, int device);
/* A stand-in for memory allocated elsewhere (an external memory buffer,
 * another process's pool allocation): charged to no one here, ended by
 * cuMemFree. */
CUresult sim_map_foreign(void **out, size_t bytes, int device);
CUresult sim_close_import(uintptr_t address);
/* An array or mipmapped array; charged to the device unless it is memory
 * allocated elsewhere (external memory). */
CUresult sim_array_create(void **handle, const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned levels,
			  bool mipmapped, bool charged);
/* The bytes the simulated layout gives a live array, whatever its flags. */
uint64_t sim_array_bytes(const void *handle);
/* A device-side range of a copy or set must lie inside a live allocation,
 * mapped virtual memory or allocated graph memory: CUDA_ERROR_INVALID_VALUE
 * otherwise. */
CUresult sim_check_device_range(CUdeviceptr dptr, size_t bytes);
/* Called with sim_lock held: whether [address, address + bytes) lies in
 * mapped virtual memory (driver_vmm.c), or in graph memory a launch
 * allocated (driver_graph.c). */
bool sim_vmm_mapped_locked(uintptr_t address, size_t bytes);
bool sim_graph_memory_locked(uintptr_t address, size_t bytes);
/* Frees graph memory outside the graph; CUDA_ERROR_INVALID_VALUE when
 * address starts none that is allocated. */
CUresult sim_graph_free(uintptr_t address);
/* Called with sim_lock held: the advice of the managed allocation that
 * holds the range, or NULL when none does. */
struct sim_advice *sim_managed_advice_locked(CUdeviceptr dptr, size_t count);
/* The bytes of one channel of an array format; 0 for one not simulated. */
unsigned sim_format_bytes(CUarray_format format);
/* Whether address starts an allocation from a pool, and which. */
bool sim_pool_allocation(uintptr_t address, size_t *bytes, struct sim_pool **pool);
/* Whether address starts a device allocation (which IPC may export). */
bool sim_exportable(uintptr_t address, size_t *bytes, int *device);

/* CUPTI's view of the driver (driver_cupti.c): a traced entry point runs
 * its body between an entry and an exit report, as the real driver fires
 * CUPTI's ENTER and EXIT callbacks. args is the entry point's struct from
 * generated_cuda_meta.h; abi its ABI name. */
void sim_api_enter(struct sim_api_call *call);
CUresult sim_api_exit(struct sim_api_call *call, CUresult result);
#define SIM_TRACED(abi, args, body)                                                 \
	({                                                                          \
		struct sim_api_call call_ = {.domain = CUPTI_CB_DOMAIN_DRIVER_API,  \
					     .cbid = CUPTI_DRIVER_TRACE_CBID_##abi, \
					     .name = #abi,                          \
					     .params = (args)};                     \
		sim_api_enter(&call_);                                              \
		sim_api_exit(&call_, (body));                                       \
	})
/* A CUPTI_CBID_RESOURCE_* event: contexts made and ended, modules loaded. */
void sim_resource_event(int cbid, CUcontext context, void *descriptor);

/* For driver_external.c, which destroys an array it failed to hand out: an
 * internal call, which CUPTI never sees. */
CUresult untraced_cuMipmappedArrayDestroy(CUmipmappedArray handle);

/* Stream capture (driver_misc.c, driver_graph.c): the graph a created
 * stream is capturing into, or NULL; a captured stream-ordered allocation
 * or free becomes a memory node of that graph. sim_stream_capture_graph
 * also fails with CUDA_ERROR_STREAM_CAPTURE_INVALIDATED for a broken
 * capture. */
/* The device whose work stream is: a created stream's own, a default
 * stream's the current context's (cuStreamGetDevice). */
CUresult sim_stream_device(CUstream stream, int *device);
CUgraph sim_stream_capture(CUstream stream);
CUresult sim_stream_capture_graph(CUstream stream, CUgraph *graph);
CUresult sim_graph_capture_alloc(CUgraph graph, int device, size_t bytes, CUdeviceptr *dptr);
CUresult sim_graph_capture_free(CUgraph graph, CUdeviceptr dptr);
CUresult sim_graph_capture_host(CUgraph graph, CUhostFn function, void *data);
