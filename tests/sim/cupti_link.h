/* How the simulated libcupti reaches the simulated driver: through an
 * export table (cuGetExportTable), as the real libcupti reaches the real
 * driver, never through an extra exported symbol. The driver reports every
 * traced entry point's entry and exit, and context and module events; the
 * libcupti side turns them into CUpti_CallbackData and CUpti_ResourceData
 * for its subscriber. */
#pragma once

#include <cuda.h>
#include <stdint.h>

/* One call of a traced entry point, from entry to exit. */
struct sim_api_call {
	int cbid;                  /* CUPTI_DRIVER_TRACE_CBID_<name> */
	const char *name;          /* the ABI name */
	const void *params;        /* its generated_cuda_meta.h struct */
	CUresult result;           /* valid at exit */
	uint64_t correlation_data; /* the subscriber's, from entry to exit */
	uint32_t correlation_id;
};

enum sim_api_site { SIM_API_ENTER, SIM_API_EXIT };

typedef void (*sim_api_hook)(enum sim_api_site site, struct sim_api_call *call);
/* cbid is a CUPTI_CBID_RESOURCE_* id; descriptor its resourceDescriptor. */
typedef void (*sim_resource_hook)(int cbid, CUcontext context, void *descriptor);

struct sim_cupti_table {
	size_t size; /* of this struct, as real export tables begin */
	/* Installs the hooks (NULL removes them). */
	void (*attach)(sim_api_hook api, sim_resource_hook resource);
};

/* The table's id, passed to cuGetExportTable. */
static const CUuuid sim_cupti_table_id = {
	{'v', 'r', 'a', 'm', 's', 'i', 'm', '-', 'c', 'u', 'p', 't', 'i', '-', 'v', '1'}};
