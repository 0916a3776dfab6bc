/* The library's state: what activation fills in and the rest of the
 * library reads (the configuration, the run, where the report goes). The
 * tracker and the devices described are the sources' (sources/tracking.h,
 * sources/devices.h). One instance, vt_library. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "../collect.h"
#include "../config.h"
#include "../sources/tracking.h"
#include "../report/run.h"

struct vt_library_state {
	struct vt_config config;
	struct vt_run run;
	char output_path[4096];
	bool output_ok;
	int output_errno; /* why output_path is not usable */
	/* Held while this process's file is written and across fork. */
	pthread_mutex_t report_lock;
	/* The final report is under way: no checkpoint after it. */
	atomic_bool stopping;
};

extern struct vt_library_state vt_library;

/* Whether this process traces, and is the one that activated: a vfork
 * child shares our memory but is another process. */
bool vt_library_traces_here(void);

/* What collect reads, from the state. */
struct vt_collect_inputs vt_library_collect_inputs(void);
