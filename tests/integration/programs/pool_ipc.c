/* Sharing a stream-ordered pool between processes: the parent allocates
 * 6 MiB from a pool made shareable as a file descriptor, exports the pool
 * and the pointer, and runs itself as a child that imports both beside
 * 1 MiB of its own. The import is the parent's memory: the child owns
 * only its 1 MiB. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MiB (1u << 20)

static void to_hex(const unsigned char *bytes, size_t size, char *hex)
{
	for (size_t i = 0; i < size; i++)
		sprintf(hex + 2 * i, "%02x", bytes[i]);
}

static int from_hex(const char *hex, unsigned char *bytes, size_t size)
{
	if (strlen(hex) != 2 * size)
		return 1;
	for (size_t i = 0; i < size; i++)
		if (sscanf(hex + 2 * i, "%2hhx", &bytes[i]) != 1)
			return 1;
	return 0;
}

static int import(int fd, const char *hex)
{
	struct cudaMemPoolPtrExportData data;
	cudaMemPool_t pool;
	void *own, *shared;
	if (from_hex(hex, data.reserved, sizeof(data.reserved)) || cudaMalloc(&own, MiB) ||
	    cudaMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)fd,
						 cudaMemHandleTypePosixFileDescriptor, 0) ||
	    cudaMemPoolImportPointer(&shared, pool, &data) || cudaMemset(shared, 1, 6 * MiB) ||
	    cudaFreeAsync(shared, 0) || cudaFree(own))
		return 1;
	return 0;
}

static int export(const char *self)
{
	struct cudaMemPoolProps props = {.allocType = cudaMemAllocationTypePinned,
					 .handleTypes = cudaMemHandleTypePosixFileDescriptor,
					 .location = {.type = cudaMemLocationTypeDevice, .id = 0}};
	cudaMemPool_t pool;
	void *shared;
	int fd;
	struct cudaMemPoolPtrExportData data;
	if (cudaMemPoolCreate(&pool, &props) ||
	    cudaMallocFromPoolAsync(&shared, 6 * MiB, pool, 0) ||
	    cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor,
					       0) ||
	    cudaMemPoolExportPointer(&data, shared))
		return 1;
	char hex[2 * sizeof(data.reserved) + 1], fd_text[16];
	to_hex(data.reserved, sizeof(data.reserved), hex);
	snprintf(fd_text, sizeof(fd_text), "%d", fd);
	pid_t child = fork();
	if (child == 0) {
		execl(self, self, "import", fd_text, hex, (char *)NULL);
		_exit(127);
	}
	int status = 1;
	if (child < 0 || waitpid(child, &status, 0) != child)
		return 1;
	close(fd);
	return cudaFreeAsync(shared, 0) || cudaMemPoolDestroy(pool) || !WIFEXITED(status) ||
	       WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "import") == 0)
		return import(atoi(argv[2]), argv[3]);
	return export(argv[0]);
}
