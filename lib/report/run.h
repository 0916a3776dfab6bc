/* What the report says about the run itself: who, where, when, how it
 * ended, with which CUDA. Gathered when the program first uses CUDA. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "../sources/driver_query.h"

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
};

/* Fills everything known at start; command is malloc'd (NULL if unread). */
void vt_run_start(struct vt_run *run, const char *labels);
void vt_run_end(struct vt_run *run, const char *ended_by);
/* The rank from RANK, SLURM_PROCID or OMPI_COMM_WORLD_RANK, or "". */
void vt_run_rank(char *out, size_t size);
