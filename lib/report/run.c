#include "run.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/clock.h"

static char *read_command_line(size_t *size)
{
	*size = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t capacity = 4096;
	char *buffer = malloc(capacity);
	while (buffer) {
		ssize_t got = read(fd, buffer + *size, capacity - *size);
		if (got <= 0)
			break;
		*size += (size_t)got;
		if (*size == capacity) {
			char *grown = capacity < (1u << 24) ? realloc(buffer, capacity * 2) : NULL;
			if (!grown)
				break;
			buffer = grown;
			capacity *= 2;
		}
	}
	close(fd);
	return buffer;
}

void vt_run_rank(char *out, size_t size)
{
	static const char *const names[] = {"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"};
	out[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *value = getenv(names[i]);
		if (value && *value) {
			snprintf(out, size, "%s", value);
			return;
		}
	}
}

/* VRAMTRACE_* and these, as docs/report-format.md lists them. */
static const char *const recorded[] = {
	"CUDA_VISIBLE_DEVICES",
	"CUDA_DEVICE_ORDER",
	"CUDA_MODULE_LOADING",
	"PYTORCH_CUDA_ALLOC_CONF",
	"PYTORCH_NO_CUDA_MEMORY_CACHING",
	"XLA_PYTHON_CLIENT_ALLOCATOR",
	"RANK",
	"LOCAL_RANK",
	"WORLD_SIZE",
	"LOCAL_WORLD_SIZE",
	"SLURM_PROCID",
	"SLURM_LOCALID",
	"OMPI_COMM_WORLD_RANK",
	"OMPI_COMM_WORLD_LOCAL_RANK",
};

bool vt_run_records_variable(const char *name, size_t length)
{
	if (length > 10 && strncmp(name, "VRAMTRACE_", 10) == 0)
		return true;
	for (size_t i = 0; i < sizeof(recorded) / sizeof(recorded[0]); i++)
		if (strlen(recorded[i]) == length && strncmp(recorded[i], name, length) == 0)
			return true;
	return false;
}

extern char **environ;

static void record_environment(struct vt_run *run)
{
	for (char **entry = environ; entry && *entry; entry++) {
		const char *equals = strchr(*entry, '=');
		if (!equals || !vt_run_records_variable(*entry, (size_t)(equals - *entry)))
			continue;
		size_t length = strlen(*entry) + 1;
		if (run->environment_size + length > sizeof(run->environment))
			continue; /* one too long to keep leaves room for the rest */
		memcpy(run->environment + run->environment_size, *entry, length);
		run->environment_size += length;
	}
}

void vt_run_start(struct vt_run *run, const char *labels, bool redact_args)
{
	memset(run, 0, sizeof(*run));
	run->command = read_command_line(&run->command_size);
	if (run->command && redact_args)
		run->command_size = strnlen(run->command, run->command_size) + 1;
	record_environment(run);
	snprintf(run->labels, sizeof(run->labels), "%s", labels);
	run->pid = (int)getpid();
	if (gethostname(run->host, sizeof(run->host) - 1) != 0)
		snprintf(run->host, sizeof(run->host), "unknown");
	vt_run_rank(run->rank, sizeof(run->rank));
	vt_clock_wall_string(run->start, sizeof(run->start));
}

void vt_run_end(struct vt_run *run, const char *ended_by)
{
	vt_clock_wall_string(run->end, sizeof(run->end));
	snprintf(run->ended_by, sizeof(run->ended_by), "%s", ended_by);
}
