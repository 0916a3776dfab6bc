/* The one way a report is assembled, whether at exit, on a dump, for a
 * checkpoint or from a signal handler: a consistent snapshot of the
 * tracker with the device views beside it. What a mode may not gather is
 * left out of the report and named there. */
#pragma once

#include "core/tracker.h"
#include "report/report.h"
#include "report/run.h"
#include "sources/call.h"
#include "sources/cupti_view.h"
#include "sources/graphs.h"
#include "sources/nvml_view.h"
#include "sources/pools.h"

enum vt_collect_mode {
	/* Everything; the driver and NVML are asked for their latest figures. */
	VT_COLLECT_FULL,
	/* Everything the tracer holds, nothing asked of the driver nor read
	 * under a lock a driver call may hold: this thread was interrupted
	 * inside a CUDA call. */
	VT_COLLECT_NO_DRIVER,
	/* From a signal handler: no lock, no allocation. */
	VT_COLLECT_EMERGENCY,
};

struct vt_collect_inputs {
	struct vt_tracker *tracker;
	const struct vt_run *run;
	const struct vt_device_info *devices;
	const struct vt_cuda_info *cuda; /* the run's versions, as described */
	unsigned top;
	bool framework_cache_off;
};

struct vt_collection {
	struct vt_report report;
	struct vt_run run;          /* a copy, ended by the reason given */
	struct vt_tracker *tracker; /* the snapshot's, for releasing an emergency's hold */
	struct vt_snapshot snapshot;
	struct vt_leaks leaks;
	bool have_leaks;
	struct vt_device_view views[VT_VIEW_DEVICES];
	struct vt_nvml_status nvml;
	struct vt_pool_view pools[VT_MAX_POOLS];
	struct vt_graph_view graphs[VT_VIEW_DEVICES];
	struct vt_cupti_view cupti;
};

/* A collection to fill: from the heap, or the one static collection in an
 * emergency (NULL when out of memory). */
struct vt_collection *vt_collection_new(enum vt_collect_mode mode);
/* Fills collection; report is collection->report. */
void vt_collect(struct vt_collection *collection, const struct vt_collect_inputs *inputs,
		const char *ended_by, enum vt_collect_mode mode);
/* Releases what vt_collection_new and vt_collect took: an emergency's
 * snapshot holds the tracker's locks until then. */
void vt_collection_release(struct vt_collection *collection, enum vt_collect_mode mode);
