/* One helper, called from one line, allocates under two tags: 8 MiB under
 * "a" and 24 MiB under "b", both live at the peak (32 MiB). The same
 * frames under two tags are two stacks, one per tag. Tags come from the
 * API, or from NVTX ranges with "nvtx". With "retag", the 8 MiB are then
 * re-tagged "c" and 1 MiB more from another line makes a peak of 33 MiB:
 * the 8 MiB are then at the helper's frames under "c". */
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <string.h>

#include "vramtrace.h"

#define MiB (1ull << 20)

static int use_nvtx;

static void push(const char *tag)
{
	if (use_nvtx)
		nvtxRangePushA(tag);
	else
		vramtrace_push(tag);
}

static void pop(void)
{
	if (use_nvtx)
		nvtxRangePop();
	else
		vramtrace_pop();
}

__attribute__((noinline)) static void *allocate_buffer(size_t bytes)
{
	void *p = NULL;
	return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
}

int main(int argc, char **argv)
{
	use_nvtx = argc > 1 && strcmp(argv[1], "nvtx") == 0;
	static const char *const tags[] = {"a", "b"};
	static const size_t sizes[] = {8 * MiB, 24 * MiB};
	void *buffers[2];
	for (int i = 0; i < 2; i++) {
		push(tags[i]);
		buffers[i] = allocate_buffer(sizes[i]); /* one call site, two tags */
		pop();
		if (!buffers[i])
			return 1;
	}
	if (argc > 1 && strcmp(argv[1], "retag") == 0) {
		if (vramtrace_tag_pointer(buffers[0], "c") != 0)
			return 2;
		void *more = NULL;
		if (cudaMalloc(&more, 1 * MiB) != cudaSuccess)
			return 3;
	}
	return 0;
}
