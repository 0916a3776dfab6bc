/* A program that holds CUPTI itself, as a profiler does (Nsight, the
 * PyTorch profiler): it subscribes as "cupti_holder" before its first CUDA
 * call, counts the
 * cuMemAlloc_v2 callbacks it receives, and allocates 3 MiB and 1 MiB. The
 * tracer must leave the subscription to it and record with its hooks. */
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <dlfcn.h>
#include <stdio.h>

static unsigned allocations_seen;

static void CUPTIAPI count(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			   const void *data)
{
	(void)userdata;
	const CUpti_CallbackData *call = data;
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2 &&
	    call->callbackSite == CUPTI_API_EXIT)
		allocations_seen++;
}

int main(void)
{
	void *cupti = dlopen("libcupti.so.13", RTLD_NOW);
	if (!cupti)
		return 1;
	CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *,
				 CUpti_SubscriberParams *) =
		(CUptiResult(*)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *,
				CUpti_SubscriberParams *))dlsym(cupti, "cuptiSubscribe_v2");
	CUptiResult (*enable)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) =
		(CUptiResult(*)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain))dlsym(
			cupti, "cuptiEnableDomain");
	CUpti_SubscriberHandle subscriber;
	CUpti_SubscriberParams params = {.structSize = CUpti_SubscriberParams_STRUCT_SIZE,
					 .subscriberName = "cupti_holder"};
	if (!subscribe || !enable ||
	    subscribe(&subscriber, count, NULL, &params) != CUPTI_SUCCESS ||
	    enable(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS)
		return 1;
	void *a, *b;
	if (cudaMalloc(&a, 3 << 20) || cudaMalloc(&b, 1 << 20) || cudaFree(a) || cudaFree(b))
		return 1;
	printf("holder saw %u allocations\n", allocations_seen);
	return 0;
}
