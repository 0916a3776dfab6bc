/* How the simulated libcupti and runtime reach the simulated driver:
 * through an export table (cuGetExportTable), as the real libraries reach
 * the real driver, never through an extra exported symbol. The driver and
 * the runtime report every traced entry point's entry and exit, the driver
 * also context and module events; the libcupti side turns them into
 * CUpti_CallbackData and CUpti_ResourceData for its subscriber. */
#pragma once

#include <cuda.h>
#include <stdint.h>

/* One call of a traced entry point, from entry to exit. */
struct sim_api_call {
	int domain;                /* CUPTI_CB_DOMAIN_DRIVER_API or _RUNTIME_API */
	int cbid;                  /* CUPTI_{DRIVER,RUNTIME}_TRACE_CBID_<name> */
	const char *name;          /* the ABI name, or the runtime's versioned one */
	const void *params;        /* its generated_cuda{,_runtime_api}_meta.h struct */
	CUresult result;           /* valid at exit, for the driver */
	int runtime_result;        /* likewise a cudaError_t, for the runtime */
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
	/* The runtime's entry and exit reports, passed to the attached hook. */
	void (*report)(enum sim_api_site site, struct sim_api_call *call);
};

/* The table's id, passed to cuGetExportTable. */
static const CUuuid sim_cupti_table_id = {
	{'v', 'r', 'a', 'm', 's', 'i', 'm', '-', 'c', 'u', 'p', 't', 'i', '-', 'v', '1'}};
