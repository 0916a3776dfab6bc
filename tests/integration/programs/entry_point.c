/* cuMemAlloc and cuMemFree reached through cudaGetDriverEntryPointByVersion,
 * as PyTorch reaches the driver. */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <stdio.h>

int main(void)
{
	PFN_cuMemAlloc_v3020 mem_alloc;
	PFN_cuMemFree_v3020 mem_free;
	enum cudaDriverEntryPointQueryResult status;
	cudaFree(NULL);
	if (cudaGetDriverEntryPointByVersion("cuMemAlloc", (void **)&mem_alloc, 12000,
					     cudaEnableDefault, &status) ||
	    status != cudaDriverEntryPointSuccess)
		return 1;
	if (cudaGetDriverEntryPointByVersion("cuMemFree", (void **)&mem_free, 12000,
					     cudaEnableDefault, &status) ||
	    status != cudaDriverEntryPointSuccess)
		return 1;
	CUdeviceptr kept, freed;
	if (mem_alloc(&kept, 96 << 20) || mem_alloc(&freed, 32 << 20) || mem_free(freed))
		return 1;
	void *missing = (void *)1;
	if (cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &missing, 12000, cudaEnableDefault,
					     &status) ||
	    status != cudaDriverEntryPointSymbolNotFound || missing)
		return 1;
	puts("entry_point: ok");
	return 0;
}
