/* CUDA IPC on the simulated device: the parent exports a 6 MiB allocation
 * and runs itself as a child that imports it, beside 1 MiB of its own. The
 * import is another process's memory, so only the child's 1 MiB is its own.
 * A process cannot open its own handle, and cudaFree cannot end an import. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MiB (1u << 20)

static int failed(const char *what, cudaError_t error, cudaError_t expected)
{
	if (error == expected)
		return 0;
	fprintf(stderr, "%s: %s\n", what, cudaGetErrorName(error));
	return 1;
}

static void to_hex(const cudaIpcMemHandle_t *handle, char *hex)
{
	const unsigned char *bytes = (const unsigned char *)handle;
	for (size_t i = 0; i < sizeof(*handle); i++)
		sprintf(hex + 2 * i, "%02x", bytes[i]);
}

static int from_hex(const char *hex, cudaIpcMemHandle_t *handle)
{
	unsigned char *bytes = (unsigned char *)handle;
	if (strlen(hex) != 2 * sizeof(*handle))
		return 1;
	for (size_t i = 0; i < sizeof(*handle); i++)
		if (sscanf(hex + 2 * i, "%2hhx", &bytes[i]) != 1)
			return 1;
	return 0;
}

static int import(const char *hex)
{
	cudaIpcMemHandle_t handle;
	void *own, *imported;
	if (from_hex(hex, &handle) || failed("own", cudaMalloc(&own, MiB), cudaSuccess) ||
	    failed("open", cudaIpcOpenMemHandle(&imported, handle, cudaIpcMemLazyEnablePeerAccess),
		   cudaSuccess) ||
	    failed("use", cudaMemset(imported, 1, 6 * MiB), cudaSuccess) ||
	    failed("cudaFree of an import", cudaFree(imported), cudaErrorInvalidValue) ||
	    failed("close", cudaIpcCloseMemHandle(imported), cudaSuccess) ||
	    failed("free", cudaFree(own), cudaSuccess))
		return 1;
	return 0;
}

static int export(const char *self)
{
	void *shared, *opened;
	cudaIpcMemHandle_t handle;
	char hex[2 * sizeof(handle) + 1];
	if (failed("malloc", cudaMalloc(&shared, 6 * MiB), cudaSuccess) ||
	    failed("handle", cudaIpcGetMemHandle(&handle, shared), cudaSuccess) ||
	    failed("own handle", cudaIpcOpenMemHandle(&opened, handle, 0),
		   cudaErrorDeviceUninitialized))
		return 1;
	cudaGetLastError();
	to_hex(&handle, hex);
	pid_t child = fork();
	if (child == 0) {
		execl(self, self, "import", hex, (char *)NULL);
		_exit(127);
	}
	int status = 1;
	if (child < 0 || waitpid(child, &status, 0) != child)
		return 1;
	return cudaFree(shared) != cudaSuccess || !WIFEXITED(status) || WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "import") == 0)
		return import(argv[2]);
	return export(argv[0]);
}
