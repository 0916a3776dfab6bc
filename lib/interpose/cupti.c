#include "cupti.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/event.h"
#include "../log.h"
#include "hooks.h"
#include "../sources/cupti_view.h"
#include "observe.h"
#include "../sources/real.h"

typedef CUptiResult (*subscribe_fn)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
typedef CUptiResult (*subscribe_v2_fn)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *,
				       CUpti_SubscriberParams *);
typedef CUptiResult (*enable_callback_fn)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
					  CUpti_CallbackId);
typedef CUptiResult (*enable_domain_fn)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain);
typedef CUptiResult (*result_string_fn)(CUptiResult, const char **);

static struct {
	bool started;
	struct vt_cupti_status status;
	CUpti_SubscriberHandle subscriber;
	const struct vt_observer *observers[CUPTI_DRIVER_TRACE_CBID_SIZE];
} cupti;

static atomic_bool warned, warned_resources;

static void on_driver_api(CUpti_CallbackId cbid, const CUpti_CallbackData *data)
{
	const struct vt_observer *observer =
		cbid < CUPTI_DRIVER_TRACE_CBID_SIZE ? cupti.observers[cbid] : NULL;
	if (!observer)
		return;
	/* The layer travels from ENTER to EXIT in correlationData; an EXIT
	 * whose ENTER came before the subscription reads 0, passive. */
	if (data->callbackSite == CUPTI_API_ENTER)
		*data->correlationData =
			vt_observe_before(observer, data->functionParams, VT_SOURCE_CUPTI, 0);
	else
		vt_observe_after((enum vt_layer) * data->correlationData, observer,
				 data->functionParams,
				 *(const CUresult *)data->functionReturnValue);
}

static void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *data)
{
	const CUpti_ModuleResourceData *module = data->resourceDescriptor;
	switch (cbid) {
	case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
		vt_cupti_view_log(VT_RESOURCE_CONTEXT_CREATED, data->context, 0);
		break;
	case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
		vt_cupti_view_log(VT_RESOURCE_CONTEXT_DESTROYING, data->context, 0);
		break;
	case CUPTI_CBID_RESOURCE_MODULE_LOADED:
		vt_cupti_view_log(VT_RESOURCE_MODULE_LOADED, data->context,
				  module ? module->cubinSize : 0);
		break;
	case CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING:
		vt_cupti_view_log(VT_RESOURCE_MODULE_UNLOADING, data->context,
				  module ? module->cubinSize : 0);
		break;
	default: break;
	}
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				 const void *data)
{
	(void)userdata;
	int saved_errno = errno;
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
		on_driver_api(cbid, data);
	else if (domain == CUPTI_CB_DOMAIN_RESOURCE)
		on_resource(cbid, data);
	errno = saved_errno;
}

/* The library path first, then the toolkit's usual places. */
static void *open_cupti(void)
{
	void *library = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
	if (!library)
		library = dlopen("libcupti.so", RTLD_NOW | RTLD_LOCAL);
	static const char *const roots[] = {"CUDA_HOME", "CUDA_PATH"};
	static const char *const places[] = {"extras/CUPTI/lib64", "lib64", "lib",
					     "targets/x86_64-linux/lib"};
	for (size_t r = 0; !library && r < sizeof(roots) / sizeof(roots[0]); r++) {
		const char *root = getenv(roots[r]);
		for (size_t p = 0; root && !library && p < sizeof(places) / sizeof(places[0]);
		     p++) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s/libcupti.so.13", root, places[p]);
			library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		}
	}
	return library;
}

static void note(const char *format, ...) __attribute__((format(printf, 1, 2)));

static void note(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(cupti.status.note, sizeof(cupti.status.note), format, args);
	va_end(args);
}

static void add_observer(const struct vt_observer *observer, void *context)
{
	(void)context;
	if (observer->cbid > 0 && observer->cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
		cupti.observers[observer->cbid] = observer;
}

/* cuptiSubscribe_v2 where there is one, so that a refusal names the
 * subscriber holding CUPTI. */
static CUptiResult subscribe_named(void *library, char *holder, size_t size)
{
	subscribe_v2_fn subscribe_v2 = (subscribe_v2_fn)vt_real_dlsym(library, "cuptiSubscribe_v2");
	if (subscribe_v2) {
		CUpti_SubscriberParams params = {
			.structSize = CUpti_SubscriberParams_STRUCT_SIZE,
			.subscriberName = "vramtrace",
			.oldSubscriberName = holder,
			.oldSubscriberSize = size,
		};
		return subscribe_v2(&cupti.subscriber, on_callback, NULL, &params);
	}
	subscribe_fn subscribe = (subscribe_fn)vt_real_dlsym(library, "cuptiSubscribe");
	return subscribe ? subscribe(&cupti.subscriber, on_callback, NULL)
			 : CUPTI_ERROR_NOT_INITIALIZED;
}

static void note_refusal(void *library, CUptiResult rc, const char *holder)
{
	result_string_fn result_string =
		(result_string_fn)vt_real_dlsym(library, "cuptiGetResultString");
	const char *text = NULL;
	if (!result_string || result_string(rc, &text) != CUPTI_SUCCESS)
		text = "?";
	if (rc != CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
		note("cuptiSubscribe failed with %d (%s)", (int)rc, text);
	else if (holder[0])
		note("CUPTI has another subscriber: %s", holder);
	else
		note("CUPTI has another subscriber (a profiler such as Nsight or the PyTorch "
		     "profiler)");
}

static bool subscribe(void *library)
{
	enable_callback_fn enable_callback =
		(enable_callback_fn)vt_real_dlsym(library, "cuptiEnableCallback");
	enable_domain_fn enable_domain =
		(enable_domain_fn)vt_real_dlsym(library, "cuptiEnableDomain");
	if (!enable_callback || !enable_domain) {
		note("libcupti lacks cuptiEnableCallback or cuptiEnableDomain");
		return false;
	}
	char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = "";
	CUptiResult rc = subscribe_named(library, holder, sizeof(holder));
	if (rc != CUPTI_SUCCESS) {
		note_refusal(library, rc, holder);
		return false;
	}
	vt_hooks_for_each_observer(add_observer, NULL);
	for (int cbid = 0; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++)
		if (cupti.observers[cbid])
			enable_callback(1, cupti.subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
					(CUpti_CallbackId)cbid);
	if (enable_domain(1, cupti.subscriber, CUPTI_CB_DOMAIN_RESOURCE) != CUPTI_SUCCESS)
		vt_warn_once(&warned_resources, "CUPTI's resource callbacks are unavailable: the "
						"report has no context or module events");
	return true;
}

void vt_cupti_start(enum vt_sources sources, uint64_t start_ns)
{
	vt_cupti_view_start(start_ns);
	if (sources == VT_SOURCES_HOOKS || cupti.started)
		return;
	cupti.started = true;
	void *library = open_cupti();
	if (!library)
		note("cannot load libcupti.so.13");
	if (library && subscribe(library)) {
		cupti.status.subscribed = true;
		vt_cupti_view_set_status(&cupti.status);
		vt_sources_set_recording(sources == VT_SOURCES_BOTH
						 ? VT_SOURCE_HOOKS | VT_SOURCE_CUPTI
						 : VT_SOURCE_CUPTI);
		return;
	}
	vt_cupti_view_set_status(&cupti.status);
	vt_warn_once(&warned, "%s; recording with the hooks instead of CUPTI", cupti.status.note);
}
