/* A third-party driver-API program as such programs are written: it loads
 * libcuda with dlopen, compiles its kernel at run time with NVRTC (the
 * toolkit's real library, argv[1]), links the PTX with the driver's JIT
 * linker and launches it, calling the entry points by the ABI names of
 * older headers (cuCtxCreate_v2, cuMemAlloc_v2, cuModuleGetGlobal_v2).
 * Prints "nvrtc_jit: ok" when every call succeeded. */
#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char source[] = "__device__ float bias[16];\n"
			     "extern \"C\" __global__ void add_bias(float *x, int n)\n"
			     "{\n"
			     "\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
			     "\tif (i < n)\n"
			     "\t\tx[i] += bias[i % 16];\n"
			     "}\n";

static void *cuda, *nvrtc;
static int failures;

#define CALL(library, name, type, ...)                                             \
	({                                                                         \
		type function_ = (type)dlsym(library, name);                       \
		int rc_ = function_ ? (int)function_(__VA_ARGS__) : -1;            \
		if (rc_ != 0) {                                                    \
			fprintf(stderr, "nvrtc_jit: %s returned %d\n", name, rc_); \
			failures++;                                                \
		}                                                                  \
		rc_;                                                               \
	})

typedef nvrtcResult (*create_fn)(nvrtcProgram *, const char *, const char *, int,
				 const char *const *, const char *const *);
typedef nvrtcResult (*compile_fn)(nvrtcProgram, int, const char *const *);
typedef nvrtcResult (*size_fn)(nvrtcProgram, size_t *);
typedef nvrtcResult (*ptx_fn)(nvrtcProgram, char *);
typedef nvrtcResult (*destroy_fn)(nvrtcProgram *);

/* The kernel's PTX, from NVRTC; NULL when it did not compile. */
static char *compile(void)
{
	nvrtcProgram program;
	const char *options[] = {"--gpu-architecture=compute_90"};
	size_t bytes = 0;
	if (CALL(nvrtc, "nvrtcCreateProgram", create_fn, &program, source, "add_bias.cu", 0, NULL,
		 NULL))
		return NULL;
	char *ptx = NULL;
	if (!CALL(nvrtc, "nvrtcCompileProgram", compile_fn, program, 1, options) &&
	    !CALL(nvrtc, "nvrtcGetPTXSize", size_fn, program, &bytes) && (ptx = malloc(bytes)))
		CALL(nvrtc, "nvrtcGetPTX", ptx_fn, program, ptx);
	CALL(nvrtc, "nvrtcDestroyProgram", destroy_fn, &program);
	return ptx;
}

typedef CUresult (*init_fn)(unsigned);
typedef CUresult (*device_get_fn)(CUdevice *, int);
typedef CUresult (*context_create_fn)(CUcontext *, unsigned, CUdevice);
typedef CUresult (*context_fn)(CUcontext);
typedef CUresult (*link_create_fn)(unsigned, CUjit_option *, void **, CUlinkState *);
typedef CUresult (*link_add_fn)(CUlinkState, CUjitInputType, void *, size_t, const char *, unsigned,
				CUjit_option *, void **);
typedef CUresult (*link_complete_fn)(CUlinkState, void **, size_t *);
typedef CUresult (*link_destroy_fn)(CUlinkState);
typedef CUresult (*load_fn)(CUmodule *, const void *);
typedef CUresult (*get_function_fn)(CUfunction *, CUmodule, const char *);
typedef CUresult (*get_global_fn)(CUdeviceptr *, size_t *, CUmodule, const char *);
typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*free_fn)(CUdeviceptr);
typedef CUresult (*to_device_fn)(CUdeviceptr, const void *, size_t);
typedef CUresult (*to_host_fn)(void *, CUdeviceptr, size_t);
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
			      unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*sync_fn)(void);
typedef CUresult (*unload_fn)(CUmodule);

/* The linked image, loaded; NULL on failure. */
static CUmodule link_and_load(char *ptx)
{
	char log[1024] = "";
	CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *values[] = {log, (void *)sizeof(log)};
	CUlinkState link;
	void *image;
	size_t bytes;
	CUmodule module = NULL;
	if (CALL(cuda, "cuLinkCreate_v2", link_create_fn, 2, options, values, &link))
		return NULL;
	if (!CALL(cuda, "cuLinkAddData_v2", link_add_fn, link, CU_JIT_INPUT_PTX, ptx,
		  strlen(ptx) + 1, "add_bias.ptx", 0, NULL, NULL) &&
	    !CALL(cuda, "cuLinkComplete", link_complete_fn, link, &image, &bytes))
		CALL(cuda, "cuModuleLoadData", load_fn, &module, image);
	CALL(cuda, "cuLinkDestroy", link_destroy_fn, link);
	if (log[0])
		fprintf(stderr, "nvrtc_jit: %s\n", log);
	return module;
}

static void run(CUmodule module)
{
	enum { N = 1 << 24 }; /* 64 MiB of floats */
	CUfunction kernel;
	CUdeviceptr x, bias;
	size_t bias_bytes = 0;
	float host_bias[16], back[4];
	for (int i = 0; i < 16; i++)
		host_bias[i] = (float)i;
	CALL(cuda, "cuModuleGetFunction", get_function_fn, &kernel, module, "add_bias");
	CALL(cuda, "cuModuleGetGlobal_v2", get_global_fn, &bias, &bias_bytes, module, "bias");
	if (bias_bytes != sizeof(host_bias))
		failures++;
	CALL(cuda, "cuMemcpyHtoD_v2", to_device_fn, bias, host_bias, sizeof(host_bias));
	if (CALL(cuda, "cuMemAlloc_v2", alloc_fn, &x, (size_t)N * sizeof(float)))
		return;
	int n = N;
	void *params[] = {&x, &n};
	CALL(cuda, "cuLaunchKernel", launch_fn, kernel, N / 256, 1, 1, 256, 1, 1, 0, NULL, params,
	     NULL);
	CALL(cuda, "cuCtxSynchronize", sync_fn);
	CALL(cuda, "cuMemcpyDtoH_v2", to_host_fn, back, x, sizeof(back));
	CALL(cuda, "cuMemFree_v2", free_fn, x);
}

int main(int argc, char **argv)
{
	if (argc != 2 || !(nvrtc = dlopen(argv[1], RTLD_NOW))) {
		fprintf(stderr, "usage: nvrtc_jit PATH-OF-LIBNVRTC (%s)\n", dlerror());
		return 2;
	}
	if (!(cuda = dlopen("libcuda.so.1", RTLD_NOW)))
		return 3;
	char *ptx = compile();
	CUdevice device;
	CUcontext context;
	if (!ptx || CALL(cuda, "cuInit", init_fn, 0) ||
	    CALL(cuda, "cuDeviceGet", device_get_fn, &device, 0) ||
	    CALL(cuda, "cuCtxCreate_v2", context_create_fn, &context, 0, device))
		return 1;
	CUmodule module = link_and_load(ptx);
	if (module) {
		run(module);
		CALL(cuda, "cuModuleUnload", unload_fn, module);
	}
	CALL(cuda, "cuCtxDestroy_v2", context_fn, context);
	free(ptx);
	if (!module || failures)
		return 1;
	puts("nvrtc_jit: ok");
	return 0;
}
