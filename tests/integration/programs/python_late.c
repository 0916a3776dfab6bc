/* A C program that allocates, then loads libpython (argv[1]) with dlopen
 * and runs Python that allocates through ctypes: the interpreter comes
 * after the tracer's first CUDA call. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>

static const char code[] =
	"import ctypes\n"
	"runtime = ctypes.CDLL('libcudart.so.13')\n"
	"def allocate():\n"
	"    pointer = ctypes.c_void_p()\n"
	"    runtime.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(2 << 20))\n"
	"allocate()\n";

int main(int argc, char **argv)
{
	void *first;
	if (argc != 2 || cudaMalloc(&first, 1 << 20) != cudaSuccess)
		return 2;
	void *python = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!python) {
		fprintf(stderr, "%s\n", dlerror());
		return 77;
	}
	void (*initialize)(void) = (void (*)(void))dlsym(python, "Py_Initialize");
	int (*run)(const char *) = (int (*)(const char *))dlsym(python, "PyRun_SimpleString");
	int (*finalize)(void) = (int (*)(void))dlsym(python, "Py_FinalizeEx");
	if (!initialize || !run || !finalize)
		return 2;
	initialize();
	int failed = run(code);
	return finalize() != 0 || failed ? 1 : 0;
}
