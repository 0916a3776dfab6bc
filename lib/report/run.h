/* What the report says about the run itself: who, where, when, how it
 * ended, with which CUDA. Gathered when the program first uses CUDA. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/views.h"

struct vt_run {
	char *command; /* /proc/self/cmdline: arguments separated by NULs */
	size_t command_size;
	char labels[4096]; /* key=value,key=value */
	int pid;
	char host[256];
	char rank[32];  /* empty when no rank variable is set */
	char start[40]; /* RFC 3339 UTC */
	char end[40];
	char ended_by[64];
	struct vt_cuda_info cuda;
	/* The few variables a report keeps: NAME=VALUE entries separated by NULs.
	 * Nothing else of the environment is ever recorded. */
	char environment[4096];
	size_t environment_size;
};

/* Whether a variable of this name may be recorded in a report. */
bool vt_run_records_variable(const char *name, size_t length);

/* Fills everything known at start; command is malloc'd (NULL if unread),
 * and only argv[0] when redact_args. */
void vt_run_start(struct vt_run *run, const char *labels, bool redact_args);
void vt_run_end(struct vt_run *run, const char *ended_by);
/* The rank from RANK, SLURM_PROCID or OMPI_COMM_WORLD_RANK, or "". */
void vt_run_rank(char *out, size_t size);
