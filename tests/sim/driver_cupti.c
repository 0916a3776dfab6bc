/* The driver's side of CUPTI: the export table libcupti attaches through,
 * and the entry and exit reports of traced entry points (SIM_TRACED). */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "cupti_link.h"
#include "sim.h"

static _Atomic(sim_api_hook) api_hook;
static _Atomic(sim_resource_hook) resource_hook;

static void attach(sim_api_hook api, sim_resource_hook resource)
{
	atomic_store(&api_hook, api);
	atomic_store(&resource_hook, resource);
}

/* The runtime's reports go to the same subscriber. */
static void report(enum sim_api_site site, struct sim_api_call *call)
{
	sim_api_hook hook = atomic_load(&api_hook);
	if (hook)
		hook(site, call);
}

static const struct sim_cupti_table cupti_table = {sizeof(cupti_table), attach, report};

/* NVIDIA's own runtime, linked into the program or carried inside a
 * library, asks the driver for its private tables first: say once why
 * nothing will work. Never reimplemented (they include a check that the
 * driver is NVIDIA's). */
static void say_private_tables_are_missing(void)
{
	static atomic_bool said;
	if (atomic_exchange(&said, true))
		return;
	int saved_errno = errno;
	fputs("vramsim: this program carries its own copy of NVIDIA's CUDA runtime (linked "
	      "statically, or inside a library such as cuBLAS), which the simulated device cannot "
	      "run; build it with `nvcc -cudart shared` to measure it here, or run it on a GPU\n",
	      stderr);
	errno = saved_errno;
}

/* Only the table libcupti and the runtime ask for; the real driver's
 * private tables are not simulated. To the runtime that asked, there is no
 * device it can use, as on a machine without a usable driver: it passes
 * CUDA_ERROR_NO_DEVICE on as cudaErrorNoDevice from every call. */
SIM_EXPORT CUresult cuGetExportTable(const void **table, const CUuuid *id)
{
	if (!table || !id)
		return CUDA_ERROR_INVALID_VALUE;
	if (memcmp(id, &sim_cupti_table_id, sizeof(*id)) != 0) {
		/* NVRTC asks as well, and compiles without them: not worth a word. */
		Dl_info caller;
		if (!dladdr(__builtin_return_address(0), &caller) || !caller.dli_fname ||
		    !strstr(caller.dli_fname, "libnvrtc"))
			say_private_tables_are_missing();
		return CUDA_ERROR_NO_DEVICE;
	}
	*table = &cupti_table;
	return CUDA_SUCCESS;
}

void sim_api_enter(struct sim_api_call *call)
{
	sim_api_hook hook = atomic_load(&api_hook);
	if (hook)
		hook(SIM_API_ENTER, call);
}

CUresult sim_api_exit(struct sim_api_call *call, CUresult result)
{
	sim_api_hook hook = atomic_load(&api_hook);
	call->result = result;
	if (hook)
		hook(SIM_API_EXIT, call);
	return result;
}

void sim_resource_event(int cbid, CUcontext context, void *descriptor)
{
	sim_resource_hook hook = atomic_load(&resource_hook);
	if (hook)
		hook(cbid, context, descriptor);
}
