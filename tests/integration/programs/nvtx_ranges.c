/* NVTX ranges through the real nvtx3 headers: plain, nested, wide, in a
 * domain, with a registered string. Tags come from NVTX_INJECTION64_PATH. */
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>

#define MiB (1 << 20)

static void domain_allocation(void)
{
	nvtxDomainHandle_t domain = nvtxDomainCreateA("serving");
	nvtxStringHandle_t name = nvtxDomainRegisterStringA(domain, "prefill");
	nvtxEventAttributes_t attributes = {0};
	attributes.version = NVTX_VERSION;
	attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	attributes.message.registered = name;
	void *p;
	nvtxDomainRangePushEx(domain, &attributes);
	cudaMalloc(&p, 5 * MiB); /* "prefill" */
	nvtxDomainRangePop(domain);
	attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
	attributes.message.ascii = "decode";
	nvtxDomainRangePushEx(domain, &attributes);
	cudaMalloc(&p, 6 * MiB); /* "decode" */
	nvtxDomainRangePop(domain);
}

int main(void)
{
	void *p;
	int level = nvtxRangePushA("model");
	cudaMalloc(&p, 1 * MiB); /* "model" */
	nvtxRangePushA("attention");
	cudaMalloc(&p, 2 * MiB); /* "attention", or "model/attention" */
	nvtxRangePop();
	nvtxRangePushW(L"gr\u00fc\u00dfe");
	cudaMalloc(&p, 3 * MiB); /* "grüße" */
	nvtxRangePop();
	nvtxRangePop();
	cudaMalloc(&p, 4 * MiB); /* untagged */
	domain_allocation();
	printf("nvtx_ranges: first level %d\n", level);
	return 0;
}
