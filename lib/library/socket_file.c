#include "socket_file.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

static struct {
	pid_t owner; /* the process that bound path */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	atomic_bool bound;
} file;

void vt_control_socket_file_keep(const char *path)
{
	file.owner = getpid();
	strncpy(file.path, path, sizeof(file.path) - 1);
	atomic_store(&file.bound, true);
}

void vt_control_remove(void)
{
	if (atomic_exchange(&file.bound, false) && getpid() == file.owner) {
		int saved_errno = errno;
		unlink(file.path);
		errno = saved_errno;
	}
}

void vt_control_socket_file_forget(void)
{
	atomic_store(&file.bound, false);
}
