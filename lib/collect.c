#include "collect.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/tags.h"
#include "log.h"

struct vt_collection *vt_collection_new(enum vt_collect_mode mode)
{
	static struct vt_collection emergency;
	if (mode == VT_COLLECT_EMERGENCY) {
		memset(&emergency, 0, sizeof(emergency));
		return &emergency;
	}
	return calloc(1, sizeof(struct vt_collection));
}

/* The views beside the tracker's figures; the driver is asked only in
 * full mode, and an emergency reads none (their locks may be held). */
static void collect_views(struct vt_collection *c, enum vt_collect_mode mode)
{
	struct vt_report *report = &c->report;
	if (mode == VT_COLLECT_EMERGENCY) {
		report->left_out |= VT_LEFT_OUT_DEVICE_VIEW | VT_LEFT_OUT_POOLS |
				    VT_LEFT_OUT_GRAPH_MEMORY | VT_LEFT_OUT_RESOURCES;
		return;
	}
	vt_nvml_read(c->views, &c->nvml);
	report->views = c->views;
	report->nvml = &c->nvml;
	if (mode == VT_COLLECT_NO_DRIVER) {
		report->left_out |=
			VT_LEFT_OUT_POOLS | VT_LEFT_OUT_GRAPH_MEMORY | VT_LEFT_OUT_RESOURCES;
		return;
	}
	report->pool_count = vt_pools_read(c->pools, VT_MAX_POOLS, true);
	report->pools = c->pools;
	vt_graphs_read(c->graphs);
	report->graphs = c->graphs;
	vt_cupti_read(&c->cupti);
	report->cupti = &c->cupti;
}

/* Names past the tag table's bound are grouped, never lost: the report
 * says so, and the first report to hold any warns. */
static void note_grouped_tags(struct vt_report *report, bool emergency)
{
	static atomic_bool warned;
	uint64_t grouped = vt_tag_grouped();
	if (!grouped)
		return;
	report->left_out |= VT_LEFT_OUT_TAGS;
	if (emergency)
		return;
	/* A table with room left grouped a name for want of host memory: a
	 * program with a handful of tags was told it had a million. */
	if (vt_tag_limit() < VT_TAG_OTHER)
		vt_warn_once(&warned,
			     "out of host memory for a new tag's name: such names are grouped "
			     "under \"other tags\" (%" PRIu64 " times so far; tracer.tags_grouped "
			     "in the report)",
			     grouped);
	else
		vt_warn_once(&warned,
			     "more than %u distinct tags: names past them are grouped under "
			     "\"other tags\" (%" PRIu64 " times so far; tracer.tags_grouped "
			     "in the report)",
			     VT_TAG_OTHER - 1, grouped);
}

void vt_collect(struct vt_collection *c, const struct vt_collect_inputs *inputs,
		const char *ended_by, enum vt_collect_mode mode)
{
	bool emergency = mode == VT_COLLECT_EMERGENCY;
	c->run = *inputs->run;
	c->run.cuda = *inputs->cuda;
	c->tracker = inputs->tracker;
	vt_run_end(&c->run, ended_by);
	/* The snapshot and the leaks are one cut of the tracker: see
	 * core/snapshot.c. */
	if (emergency)
		vt_tracker_peek(inputs->tracker, &c->snapshot);
	else
		c->have_leaks = vt_leaks_snapshot(inputs->tracker, &c->snapshot, &c->leaks);
	c->report = (struct vt_report){
		.run = &c->run,
		.snapshot = &c->snapshot,
		.devices = inputs->devices,
		.leaks = c->have_leaks ? &c->leaks : NULL,
		.top = inputs->top,
		.symbolizer = emergency ? NULL : vt_symbolizer_open(),
		.emergency = emergency,
		.framework_cache_off = inputs->framework_cache_off,
		.recording = vt_sources_recording(),
	};
	if (!c->have_leaks)
		c->report.left_out |= VT_LEFT_OUT_LEAKS;
	if (emergency)
		c->report.left_out |= VT_LEFT_OUT_SYMBOLS;
	note_grouped_tags(&c->report, emergency);
	collect_views(c, mode);
}

void vt_collection_release(struct vt_collection *c, enum vt_collect_mode mode)
{
	if (!c)
		return;
	if (mode == VT_COLLECT_EMERGENCY) {
		vt_tracker_peek_end(c->tracker, &c->snapshot);
		return;
	}
	if (c->report.symbolizer)
		vt_symbolizer_close(c->report.symbolizer);
	if (c->have_leaks)
		vt_leaks_free(&c->leaks);
	vt_snapshot_free(&c->snapshot);
	free(c);
}
