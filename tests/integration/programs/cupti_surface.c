/* The simulated libcupti against the real one: callback names, result
 * strings and the version as libcupti.so.13 of CUDA 13.0 gives them (it
 * needs no GPU for those); one subscriber, enabled ids only, ENTER and EXIT
 * with the generated_cuda_meta.h parameters (and the runtime's, for the
 * runtime domain), correlation data from ENTER to EXIT and resource events
 * as cupti_callbacks.h describes them. Exits
 * non-zero, naming each failed check. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(condition)                                                      \
	do {                                                                  \
		if (!(condition)) {                                           \
			printf("FAILED line %d: %s\n", __LINE__, #condition); \
			failures++;                                           \
		}                                                             \
	} while (0)

struct seen {
	unsigned enters, exits, contexts, runtime_exits;
	cudaError_t runtime_result;
	size_t runtime_bytes;
	const char *runtime_name;
	const void *params;
	CUdeviceptr *dptr;
	size_t bytes;
	CUresult result;
	uint32_t enter_id, exit_id;
	uint64_t carried;
	const char *name;
};

static void CUPTIAPI record(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			    const void *data)
{
	struct seen *seen = userdata;
	if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
		seen->contexts += cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED;
		return;
	}
	const CUpti_CallbackData *call = data;
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
	    cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020 &&
	    call->callbackSite == CUPTI_API_EXIT) {
		seen->runtime_exits++;
		seen->runtime_result = *(const cudaError_t *)call->functionReturnValue;
		seen->runtime_bytes = ((const cudaMalloc_v3020_params *)call->functionParams)->size;
		seen->runtime_name = call->functionName;
		return;
	}
	if (domain != CUPTI_CB_DOMAIN_DRIVER_API || cbid != CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2)
		return;
	const cuMemAlloc_v2_params *params = call->functionParams;
	seen->name = call->functionName;
	if (call->callbackSite == CUPTI_API_ENTER) {
		seen->enters++;
		seen->dptr = params->dptr;
		seen->bytes = params->bytesize;
		seen->enter_id = call->correlationId;
		*call->correlationData = 0xfeed;
		CHECK(call->functionReturnValue == NULL);
	} else {
		seen->exits++;
		seen->result = *(const CUresult *)call->functionReturnValue;
		seen->exit_id = call->correlationId;
		seen->carried = *call->correlationData;
	}
}

static void names_and_results(void)
{
	const char *name = NULL;
	CHECK(cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, 243, &name) == CUPTI_SUCCESS);
	CHECK(name && strcmp(name, "cuMemAlloc_v2") == 0);
	CHECK(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, 20, &name) == CUPTI_SUCCESS);
	CHECK(strcmp(name, "cudaMalloc_v3020") == 0);
	CHECK(cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, 0, &name) == CUPTI_SUCCESS);
	CHECK(strcmp(name, "INVALID") == 0);
	CHECK(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RESOURCE, 1, &name) ==
	      CUPTI_ERROR_INVALID_PARAMETER);
	CHECK(cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE,
				   &name) == CUPTI_ERROR_INVALID_PARAMETER);
	const char *text = NULL;
	CHECK(cuptiGetResultString(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, &text) ==
	      CUPTI_SUCCESS);
	CHECK(strcmp(text, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED") == 0);
	CHECK(cuptiGetResultString((CUptiResult)12345, &text) == CUPTI_ERROR_INVALID_PARAMETER);
	CHECK(strcmp(text, "<unknown>") == 0);
	uint32_t version = 0;
	CHECK(cuptiGetVersion(&version) == CUPTI_SUCCESS && version == CUPTI_API_VERSION);
}

int main(void)
{
	names_and_results();
	struct seen seen = {0};
	CUpti_SubscriberHandle subscriber, second;
	CUpti_SubscriberParams named = {.structSize = CUpti_SubscriberParams_STRUCT_SIZE,
					.subscriberName = "surface"};
	CHECK(cuptiSubscribe_v2(&subscriber, record, &seen, &named) == CUPTI_SUCCESS);
	char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = "";
	CUpti_SubscriberParams refused = {.structSize = CUpti_SubscriberParams_STRUCT_SIZE,
					  .oldSubscriberName = holder,
					  .oldSubscriberSize = sizeof(holder)};
	CHECK(cuptiSubscribe_v2(&second, record, NULL, &refused) ==
	      CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
	CHECK(strcmp(holder, "CUPTI for surface") == 0);
	CHECK(cuptiSubscribe(&second, record, NULL) ==
	      CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
	CHECK(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
				  CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2) == CUPTI_SUCCESS);
	CHECK(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE) == CUPTI_SUCCESS);
	uint32_t state = 0;
	CHECK(cuptiGetCallbackState(&state, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
				    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2) == CUPTI_SUCCESS &&
	      state == 0);

	CUdevice device;
	CUcontext context;
	CUdeviceptr p;
	CHECK(cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&device, 0) == CUDA_SUCCESS);
	CHECK(cuDevicePrimaryCtxRetain(&context, device) == CUDA_SUCCESS);
	CHECK(cuCtxSetCurrent(context) == CUDA_SUCCESS);
	CHECK(cuMemAlloc(&p, 3 << 20) == CUDA_SUCCESS);
	CHECK(cuMemFree(p) == CUDA_SUCCESS); /* not enabled: no callback */
	CHECK(seen.contexts == 1 && seen.enters == 1 && seen.exits == 1);
	CHECK(seen.dptr == &p && seen.bytes == 3 << 20 && seen.result == CUDA_SUCCESS);
	CHECK(seen.name && strcmp(seen.name, "cuMemAlloc_v2") == 0);
	CHECK(seen.enter_id != 0 && seen.enter_id == seen.exit_id && seen.carried == 0xfeed);

	uint32_t first_id = seen.enter_id;
	CHECK(cuMemAlloc(&p, 1ull << 50) == CUDA_ERROR_OUT_OF_MEMORY);
	CHECK(seen.exits == 2 && seen.result == CUDA_ERROR_OUT_OF_MEMORY);
	CHECK(seen.enter_id == first_id + 1 && seen.exit_id == seen.enter_id);

	/* The runtime reports through the same subscriber; its cudaMalloc
	 * reaches cuMemAlloc_v2, reported too. */
	CHECK(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
				  CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020) == CUPTI_SUCCESS);
	void *q;
	CHECK(cudaMalloc(&q, 5 << 20) == cudaSuccess && cudaFree(q) == cudaSuccess);
	CHECK(seen.runtime_exits == 1 && seen.runtime_result == cudaSuccess);
	CHECK(seen.runtime_bytes == 5 << 20 && seen.exits == 3);
	CHECK(seen.runtime_name && strcmp(seen.runtime_name, "cudaMalloc_v3020") == 0);

	CHECK(cuptiUnsubscribe(subscriber) == CUPTI_SUCCESS);
	CHECK(cuMemAlloc(&p, 1 << 20) == CUDA_SUCCESS && cuMemFree(p) == CUDA_SUCCESS);
	CHECK(seen.enters == 3);
	CHECK(cuptiSubscribe(&second, record, &seen) == CUPTI_SUCCESS);
	CHECK(cuptiFinalize() == CUPTI_SUCCESS);
	printf("%s\n", failures ? "simulated CUPTI differs" : "simulated CUPTI as the real one");
	return failures != 0;
}
