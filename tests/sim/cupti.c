/* Stand-in libcupti.so.13: the callback API (cupti_callbacks.h) over the
 * simulated driver and runtime. One subscriber at a time, as CUPTI allows
 * (a second gets error 39, and cuptiSubscribe_v2 names the first); the
 * driver's and the runtime's entry and exit reports become
 * CUpti_CallbackData, the driver's context and module events
 * CUpti_ResourceData, for the enabled ids only. Names and result strings
 * are the real library's, generated from the headers (cupti_names.sh). */
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cupti_link.h"

#define SIM_EXPORT    __attribute__((visibility("default")))
#define COUNT(array)  (sizeof(array) / sizeof((array)[0]))
#define RESOURCE_IDS  32
#define SUBSCRIBER_ID ((CUpti_SubscriberHandle)0x5ab5c0de)

extern const char *const sim_driver_callback_names[CUPTI_DRIVER_TRACE_CBID_SIZE];
extern const char *const sim_runtime_callback_names[CUPTI_RUNTIME_TRACE_CBID_SIZE];
extern const struct {
	int code;
	const char *name;
} sim_result_names[];
extern const unsigned sim_result_name_count;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	bool subscribed;
	char name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN]; /* "CUPTI for <name>", or "CUPTI" */
	CUpti_CallbackFunc callback;
	void *userdata;
	_Atomic bool driver[CUPTI_DRIVER_TRACE_CBID_SIZE];
	_Atomic bool runtime[CUPTI_RUNTIME_TRACE_CBID_SIZE];
	_Atomic bool resource[RESOURCE_IDS];
	const struct sim_cupti_table *table;
	CUresult (*current_context)(CUcontext *);
	_Atomic uint32_t correlation;
} cupti;

/* The enable flags of a domain that has them, and how many; ids start at 1. */
static _Atomic bool *domain_flags(CUpti_CallbackDomain domain, size_t *count)
{
	switch (domain) {
	case CUPTI_CB_DOMAIN_DRIVER_API: *count = COUNT(cupti.driver); return cupti.driver;
	case CUPTI_CB_DOMAIN_RUNTIME_API: *count = COUNT(cupti.runtime); return cupti.runtime;
	case CUPTI_CB_DOMAIN_RESOURCE: *count = COUNT(cupti.resource); return cupti.resource;
	default: *count = 0; return NULL;
	}
}

static _Atomic bool *slot(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	size_t count;
	_Atomic bool *flags = domain_flags(domain, &count);
	return flags && cbid > 0 && cbid < count ? &flags[cbid] : NULL;
}

static void on_api(enum sim_api_site site, struct sim_api_call *call)
{
	CUpti_CallbackDomain domain = (CUpti_CallbackDomain)call->domain;
	_Atomic bool *enabled = slot(domain, (CUpti_CallbackId)call->cbid);
	if (!enabled || !atomic_load(enabled))
		return;
	if (site == SIM_API_ENTER)
		call->correlation_id = atomic_fetch_add(&cupti.correlation, 1) + 1;
	CUcontext context = NULL;
	cupti.current_context(&context);
	CUpti_CallbackData data = {
		.callbackSite = site == SIM_API_ENTER ? CUPTI_API_ENTER : CUPTI_API_EXIT,
		.functionName = call->name,
		.functionParams = call->params,
		.functionReturnValue = site == SIM_API_ENTER ? NULL
				       : domain == CUPTI_CB_DOMAIN_DRIVER_API
					       ? (void *)&call->result
					       : (void *)&call->runtime_result,
		.context = context,
		.contextUid = (uint32_t)(uintptr_t)context,
		.correlationData = &call->correlation_data,
		.correlationId = call->correlation_id,
	};
	cupti.callback(cupti.userdata, domain, (CUpti_CallbackId)call->cbid, &data);
}

static void on_resource(int cbid, CUcontext context, void *descriptor)
{
	_Atomic bool *enabled = slot(CUPTI_CB_DOMAIN_RESOURCE, (CUpti_CallbackId)cbid);
	if (!enabled || !atomic_load(enabled))
		return;
	CUpti_ResourceData data = {.context = context, .resourceDescriptor = descriptor};
	cupti.callback(cupti.userdata, CUPTI_CB_DOMAIN_RESOURCE, (CUpti_CallbackId)cbid, &data);
}

/* The driver is reached as the real libcupti reaches it: loaded by name,
 * through its export table. */
static bool attach_driver(void)
{
	void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!driver)
		return false;
	CUresult (*export_table)(const void **, const CUuuid *) =
		(CUresult(*)(const void **, const CUuuid *))dlsym(driver, "cuGetExportTable");
	cupti.current_context = (CUresult(*)(CUcontext *))dlsym(driver, "cuCtxGetCurrent");
	const void *table = NULL;
	if (!export_table || !cupti.current_context ||
	    export_table(&table, &sim_cupti_table_id) != CUDA_SUCCESS)
		return false;
	cupti.table = table;
	cupti.table->attach(on_api, on_resource);
	return true;
}

SIM_EXPORT CUptiResult cuptiGetVersion(uint32_t *version)
{
	if (!version)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*version = CUPTI_API_VERSION;
	return CUPTI_SUCCESS;
}

static CUptiResult subscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
			     void *userdata, CUpti_SubscriberParams *params)
{
	pthread_mutex_lock(&lock);
	CUptiResult rc = CUPTI_SUCCESS;
	if (!cupti.table && !attach_driver())
		rc = CUPTI_ERROR_UNKNOWN; /* as the real one answers with no driver */
	else if (!subscriber || !callback)
		rc = CUPTI_ERROR_INVALID_PARAMETER;
	else if (cupti.subscribed)
		rc = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED && params &&
	    params->oldSubscriberName && params->oldSubscriberSize)
		snprintf(params->oldSubscriberName, params->oldSubscriberSize, "%s", cupti.name);
	if (rc == CUPTI_SUCCESS) {
		const char *name = params ? params->subscriberName : NULL;
		if (name)
			snprintf(cupti.name, sizeof(cupti.name), "CUPTI for %.*s",
				 CUPTI_SUBSCRIBER_NAME_MAX_LEN, name);
		else
			snprintf(cupti.name, sizeof(cupti.name), "CUPTI");
		cupti.callback = callback;
		cupti.userdata = userdata;
		cupti.subscribed = true;
		*subscriber = SUBSCRIBER_ID;
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

SIM_EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber,
				      CUpti_CallbackFunc callback, void *userdata)
{
	return subscribe(subscriber, callback, userdata, NULL);
}

SIM_EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber,
					 CUpti_CallbackFunc callback, void *userdata,
					 CUpti_SubscriberParams *params)
{
	if (!params || params->structSize < CUpti_SubscriberParams_STRUCT_SIZE)
		return CUPTI_ERROR_INVALID_PARAMETER;
	return subscribe(subscriber, callback, userdata, params);
}

SIM_EXPORT CUptiResult cuptiSupportedDomains(size_t *count, CUpti_DomainTable *table)
{
	static CUpti_CallbackDomain domains[] = {
		CUPTI_CB_DOMAIN_DRIVER_API,  CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_RESOURCE,
		CUPTI_CB_DOMAIN_SYNCHRONIZE, CUPTI_CB_DOMAIN_NVTX,        CUPTI_CB_DOMAIN_STATE,
	};
	if (!count || !table)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&lock);
	bool attached = cupti.table || attach_driver();
	pthread_mutex_unlock(&lock);
	if (!attached)
		return CUPTI_ERROR_UNKNOWN;
	*count = COUNT(domains);
	*table = domains;
	return CUPTI_SUCCESS;
}

static bool enable_domain(CUpti_CallbackDomain domain, bool enable)
{
	size_t count;
	_Atomic bool *flags = domain_flags(domain, &count);
	for (size_t i = 1; i < count; i++)
		atomic_store(&flags[i], enable);
	return flags != NULL;
}

static void disable_all(void)
{
	enable_domain(CUPTI_CB_DOMAIN_DRIVER_API, false);
	enable_domain(CUPTI_CB_DOMAIN_RUNTIME_API, false);
	enable_domain(CUPTI_CB_DOMAIN_RESOURCE, false);
}

SIM_EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle subscriber)
{
	pthread_mutex_lock(&lock);
	bool ours = cupti.subscribed && subscriber == SUBSCRIBER_ID;
	if (ours) {
		disable_all();
		cupti.subscribed = false;
	}
	pthread_mutex_unlock(&lock);
	return ours ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

SIM_EXPORT CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
					   CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	_Atomic bool *enabled = slot(domain, cbid);
	if (!cupti.subscribed || subscriber != SUBSCRIBER_ID || !enabled)
		return CUPTI_ERROR_INVALID_PARAMETER;
	atomic_store(enabled, enable != 0);
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult cuptiGetCallbackState(uint32_t *enable, CUpti_SubscriberHandle subscriber,
					     CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	_Atomic bool *enabled = slot(domain, cbid);
	if (!enable || !cupti.subscribed || subscriber != SUBSCRIBER_ID || !enabled)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*enable = atomic_load(enabled);
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
					 CUpti_CallbackDomain domain)
{
	if (!cupti.subscribed || subscriber != SUBSCRIBER_ID || !enable_domain(domain, enable != 0))
		return CUPTI_ERROR_INVALID_PARAMETER;
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult cuptiEnableAllDomains(uint32_t enable, CUpti_SubscriberHandle subscriber)
{
	static const CUpti_CallbackDomain domains[] = {
		CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_RESOURCE};
	CUptiResult rc = CUPTI_SUCCESS;
	for (size_t i = 0; i < COUNT(domains) && rc == CUPTI_SUCCESS; i++)
		rc = cuptiEnableDomain(enable, subscriber, domains[i]);
	return rc;
}

/* Names exist for the driver and runtime domains only; id 0 is
 * "INVALID", as in the headers. */
SIM_EXPORT CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
					    const char **name)
{
	const char *found = NULL;
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
		found = sim_driver_callback_names[cbid];
	else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
		found = sim_runtime_callback_names[cbid];
	if (!name || !found)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*name = found;
	return CUPTI_SUCCESS;
}

/* An unknown code reads "<unknown>" and fails, as in the real library. */
SIM_EXPORT CUptiResult cuptiGetResultString(CUptiResult result, const char **text)
{
	if (!text)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (unsigned i = 0; i < sim_result_name_count; i++)
		if (sim_result_names[i].code == (int)result) {
			*text = sim_result_names[i].name;
			return CUPTI_SUCCESS;
		}
	*text = "<unknown>";
	return CUPTI_ERROR_INVALID_PARAMETER;
}

/* Ends the subscription and detaches from the driver. */
SIM_EXPORT CUptiResult cuptiFinalize(void)
{
	pthread_mutex_lock(&lock);
	disable_all();
	cupti.subscribed = false;
	if (cupti.table)
		cupti.table->attach(NULL, NULL);
	cupti.table = NULL;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}
