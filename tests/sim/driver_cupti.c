/* The driver's side of CUPTI: the export table libcupti attaches through,
 * and the entry and exit reports of traced entry points (SIM_TRACED). */
#include <stdatomic.h>
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

/* Only the table libcupti and the runtime ask for; the real driver's private tables are
 * not simulated. */
SIM_EXPORT CUresult cuGetExportTable(const void **table, const CUuuid *id)
{
	if (!table || !id)
		return CUDA_ERROR_INVALID_VALUE;
	if (memcmp(id, &sim_cupti_table_id, sizeof(*id)) != 0)
		return CUDA_ERROR_INVALID_VALUE;
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
