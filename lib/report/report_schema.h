/* The report's fields (schema vramtrace/1), each once. The writer
 * (report_json.c), the tools' checker (tools/report_file.c) and the tools'
 * model and its filler (tools/report_model.h, report_model.c) are all
 * expanded from these lists, and the lint test schema_documented holds
 * docs/report-format.md to them: a field is added by one line here and its
 * line there.
 *
 * Each list is one JSON object's fields, in the order they are written:
 *   X(key, type, value)
 * key is the JSON key and the member of the tools' model of that object;
 * value is what the writer writes, an expression over the writer's locals
 * named above each list (and json, the writer). type says how the field is written, checked and
 * read:
 *
 *   type                written        checked                   model
 *   COUNT               integer >= 0   below 2^62, required      int64_t
 *   COUNT_OR_NULL       integer, null  a COUNT, null or absent   struct vt_maybe
 *   STACK               a stack id     as COUNT                  int64_t
 *   STACK_OR_NULL       id, or null    as COUNT_OR_NULL          struct vt_maybe
 *   REQUEST             integer        below 2^64 (see docs)     uint64_t
 *   INTEGER             integer        any integer, required     int64_t
 *   STRING              string         a string, required        const char *
 *   STRING_OR_NULL      string, null   a string, null or absent  const char *, NULL
 *   FIGURE              integer >= 0   below 2^63, null, absent  int64_t, 0 if not one
 *   FIGURE_OR_NULL      integer, null  as FIGURE                 struct vt_maybe
 *   SIGNED              integer        an integer, or absent     int64_t
 *   NOTE                string, null   not checked               const char *, NULL
 *   FLAG                true, false    not checked               bool (true only if true)
 *   NESTED              an object or array written, checked and read by hand
 *
 * An _OR_NULL field's value is VT_KNOWN(x) or VT_KNOWN_IF(known, x): null
 * unless known; a STACK_OR_NULL's is the stack id, null when it is none.
 * A NESTED field's value is the writer's call that writes it, in its
 * place; the checker and the filler read it by hand.
 * FIGURE and SIGNED may be absent, as older reports lack some; NOTE and
 * FLAG are words no reader computes with, and are not checked. Figures that
 * contradict each other (parts above their whole) are refused by hand
 * (tools/report_relations.c).
 *
 * What stays by hand, being no flat list of fields: the document's top
 * level, the arrays and nested objects (NESTED), objects keyed by name
 * (labels, environment, by_tag, live_by_tag), tracer.sources, left_out,
 * nvml and cupti, and the frames (stack_frames.c writes a frame's empty
 * names as null and python and inlined only when true).
 *
 * This header includes nothing: the lint expands it with the preprocessor
 * alone. */
#pragma once

/* clang-format off */

/* run; locals: run (struct vt_run) */
#define VT_SCHEMA_RUN(X) \
	X(command, NESTED, write_command(json, run)) \
	X(labels, NESTED, write_labels(json, run->labels)) \
	X(environment, NESTED, write_environment(json, run)) \
	X(pid, FIGURE, run->pid) \
	X(host, STRING_OR_NULL, run->host) \
	X(rank, STRING_OR_NULL, run->rank[0] ? run->rank : NULL) \
	X(start, NOTE, run->start) \
	X(end, NOTE, run->end) \
	X(ended_by, STRING_OR_NULL, run->ended_by) \
	X(cuda, NESTED, write_cuda(json, &run->cuda))

/* run.cuda; locals: cuda (struct vt_cuda_info) */
#define VT_SCHEMA_CUDA(X) \
	X(runtime, FIGURE_OR_NULL, VT_KNOWN_IF(cuda->runtime_version != 0, cuda->runtime_version)) \
	X(driver, FIGURE_OR_NULL, VT_KNOWN_IF(cuda->driver_version != 0, cuda->driver_version)) \
	X(device_count, FIGURE, cuda->device_count)

/* devices[], before the totals; locals: report, device (its ordinal),
 * info (struct vt_device_info) */
#define VT_SCHEMA_DEVICE(X) \
	X(ordinal, COUNT, device) \
	X(name, STRING_OR_NULL, info->known ? info->name : NULL) \
	X(pci_bus_id, NOTE, info->known ? info->pci_bus_id : NULL) \
	X(uuid, STRING_OR_NULL, info->known && info->uuid[0] ? info->uuid : NULL) \
	X(capacity_bytes, COUNT_OR_NULL, VT_KNOWN_IF(info->known && info->capacity, info->capacity)) \
	X(contexts, FIGURE, report->snapshot->devices[device].contexts) \
	X(device_view, NESTED, write_device_view(json, report, device)) \
	X(pools, NESTED, write_pools(json, report, device)) \
	X(graph_memory, NESTED, write_graph_memory(json, report, device))

/* What a device and the host section share; locals: report, stats
 * (struct vt_device_stats), device (VT_HOST_DEVICE for the host), set (the
 * stack ids mentioned) */
#define VT_SCHEMA_TOTALS(X) \
	X(peak, NESTED, write_peak(json, stats)) \
	X(peak_since_reset, NESTED, write_interval(json, &stats->interval)) \
	X(live_at_exit_bytes, COUNT, stats->live) \
	X(live_at_exit_allocations, COUNT, stats->live_count) \
	X(allocations, COUNT, stats->allocs) \
	X(frees, COUNT, stats->frees) \
	X(failed_allocations, COUNT, stats->failures) \
	X(bytes_allocated, COUNT, stats->bytes_allocated) \
	X(kinds, NESTED, write_kinds(json, stats)) \
	X(tags, NESTED, write_tags(json, report, stats)) \
	X(stacks, NESTED, write_stacks(json, report, stats, set)) \
	X(leaks, NESTED, write_leaks(json, report, device, set)) \
	X(failures, NESTED, write_failures(json, report->snapshot, device, set)) \
	X(watermark, NESTED, write_watermark(json, report->snapshot, stats, device, set)) \
	X(timeline, NESTED, write_timeline(json, report, stats, set))

/* Written after stacks: every stack holding bytes at the peak; locals:
 * count, bytes */
#define VT_SCHEMA_STACKS_AT_PEAK(X) \
	X(stacks_at_peak, FIGURE_OR_NULL, VT_KNOWN(count)) \
	X(stacks_at_peak_bytes, FIGURE_OR_NULL, VT_KNOWN(bytes))

/* peak; locals: stats */
#define VT_SCHEMA_PEAK(X) \
	X(bytes, COUNT, stats->peak) \
	X(at_ns, COUNT, stats->peak_ns) \
	X(event, FIGURE, stats->peak_event) \
	X(api, STRING_OR_NULL, stats->peak_api) \
	X(driver_api, NOTE, stats->peak_driver_api)

/* peak_since_reset (null when no reset came); locals: interval */
#define VT_SCHEMA_INTERVAL(X) \
	X(since_ns, COUNT, interval->since_ns) \
	X(bytes, COUNT, interval->peak) \
	X(at_ns, COUNT, interval->peak_ns)

/* The figures of every kind, tag and stack entry; locals: stats, counter */
#define VT_SCHEMA_COUNTER(X) \
	X(peak_bytes, COUNT, counter->peak) \
	X(at_peak_bytes, COUNT, vt_stats_at_peak(stats, counter)) \
	X(live_at_exit_bytes, COUNT, counter->live) \
	X(allocations, COUNT, counter->allocs) \
	X(frees, COUNT, counter->frees) \
	X(bytes_allocated, COUNT, counter->bytes_allocated)

/* kinds[], then the counter's fields; locals: kind (enum vt_kind) */
#define VT_SCHEMA_KIND(X) \
	X(kind, STRING, vt_kind_name(kind))

/* tags[], then the counter's fields; locals: tag (its id) */
#define VT_SCHEMA_TAG(X) \
	X(tag, STRING, vt_tag_name(tag))

/* stacks[], then the counter's fields; locals: stack (its id), counter */
#define VT_SCHEMA_STACK(X) \
	X(id, STACK, stack) \
	X(tag, STRING, vt_tag_name(counter->tag))

/* leaks[]; locals: leak */
#define VT_SCHEMA_LEAK(X) \
	X(stack, STACK_OR_NULL, leak->stack) \
	X(tag, STRING, vt_tag_name(leak->tag)) \
	X(count, COUNT, leak->count) \
	X(bytes, COUNT, leak->bytes)

/* failures[]; locals: failure */
#define VT_SCHEMA_FAILURE(X) \
	X(bytes, REQUEST, failure->bytes) \
	X(kind, NOTE, vt_kind_name(failure->kind)) \
	X(error, INTEGER, failure->error) \
	X(error_name, NOTE, vt_cuda_error_name(failure->api, failure->error)) \
	X(api, STRING_OR_NULL, failure->api) \
	X(driver_api, NOTE, failure->driver_api) \
	X(at_ns, COUNT, failure->at_ns) \
	X(live_bytes, COUNT, failure->live_bytes) \
	X(tag, STRING_OR_NULL, vt_tag_name(failure->tag)) \
	X(stack, STACK_OR_NULL, failure->stack) \
	X(snapshot, NESTED, write_snapshot(json, failure->snapshot, set))

/* A failure's or a crossing's snapshot: what was live */
#define VT_SCHEMA_SNAPSHOT(X) \
	X(live_by_tag, NESTED, write_live_by_tag(json, snapshot)) \
	X(top_stacks, NESTED, write_top_stacks(json, snapshot->stacks, snapshot->stack_count, set))

/* snapshot.top_stacks[]; locals: top (struct vt_oom_stack) */
#define VT_SCHEMA_TOP_STACK(X) \
	X(stack, STACK, top->stack) \
	X(bytes, COUNT, top->bytes)

/* watermark (null without VRAMTRACE_WATERMARK); locals: stats */
#define VT_SCHEMA_WATERMARK(X) \
	X(high_bytes, COUNT, stats->watermark_high) \
	X(low_bytes, COUNT, stats->watermark_low) \
	X(crossings, NESTED, write_crossings(json, snapshot, device, set))

/* watermark.crossings[]; locals: crossing */
#define VT_SCHEMA_CROSSING(X) \
	X(at_ns, COUNT, crossing->at_ns) \
	X(event, COUNT, crossing->event) \
	X(live_bytes, COUNT, crossing->live_bytes) \
	X(api, NOTE, crossing->api) \
	X(snapshot, NESTED, write_snapshot(json, crossing->snapshot, set))

/* timeline; locals: timeline, end_ns, history, moments, set. The history's
 * counts came later: older reports lack them. */
#define VT_SCHEMA_TIMELINE(X) \
	X(interval_ns, COUNT, timeline->interval_ns) \
	X(end_ns, COUNT_OR_NULL, VT_KNOWN(end_ns)) \
	X(rows, NESTED, write_rows(json, timeline, moments, set)) \
	X(history_changes, COUNT_OR_NULL, VT_KNOWN(history->changes)) \
	X(history_bound, COUNT_OR_NULL, VT_KNOWN(history->bound))

/* timeline.rows[]; locals: row, moment (null where the history did not
 * reach the row, or nothing was replayed). live_bytes repeats max_bytes for readers
 * of reports older than the other three. */
#define VT_SCHEMA_ROW(X) \
	X(t_ns, COUNT, row->t_ns) \
	X(live_bytes, COUNT, row->max) \
	X(min_bytes, COUNT_OR_NULL, VT_KNOWN(row->min)) \
	X(max_bytes, COUNT_OR_NULL, VT_KNOWN(row->max)) \
	X(end_bytes, COUNT_OR_NULL, VT_KNOWN(row->end)) \
	X(by_tag, NESTED, write_by_tag(json, row)) \
	X(top_stacks, NESTED, write_moment_stacks(json, moment, set)) \
	X(other_stacks_bytes, COUNT_OR_NULL, VT_KNOWN_IF(moment && moment->kept, moment ? moment->other : 0))

/* device_view (null without NVML); locals: view, tracked_peak */
#define VT_SCHEMA_DEVICE_VIEW(X) \
	X(source, NOTE, view->per_process ? "nvml process" : "nvml device") \
	X(samples, FIGURE, view->samples) \
	X(peak_used_bytes, FIGURE, view->peak_used) \
	X(used_at_tracked_peak_bytes, FIGURE, view->used_at_best) \
	X(tracked_at_sample_bytes, FIGURE, view->tracked_at_best) \
	X(unexplained_at_peak_bytes, SIGNED, (int64_t)view->used_at_best - (int64_t)view->tracked_at_best) \
	X(sampled_at_peak, FLAG, view->tracked_at_best == tracked_peak)

/* What pools[] and graph_memory share; locals: memory (struct
 * vt_reserve_view) */
#define VT_SCHEMA_RESERVE(X) \
	X(reserved_bytes, FIGURE, memory->reserved) \
	X(reserved_peak_bytes, FIGURE, memory->reserved_peak) \
	X(used_bytes, FIGURE, memory->used) \
	X(used_peak_bytes, FIGURE, memory->used_peak)

/* pools[], after the reserve's fields; locals: pool */
#define VT_SCHEMA_POOL(X) \
	X(destroyed, FLAG, pool->destroyed)

/* graph_memory (null without graph allocation nodes), after the reserve's
 * fields; locals: graphs */
#define VT_SCHEMA_GRAPH_MEMORY(X) \
	X(allocation_nodes, FIGURE, graphs->allocation_nodes)

/* frames[], and frames written in place (older and emergency reports);
 * written by hand (stack_frames.c), so the values are unused */
#define VT_SCHEMA_FRAME(X) \
	X(function, STRING_OR_NULL, 0) \
	X(module, STRING_OR_NULL, 0) \
	X(offset, FIGURE, 0) \
	X(file, STRING_OR_NULL, 0) \
	X(line, FIGURE, 0) \
	X(python, FLAG, 0) \
	X(inlined, FLAG, 0)

/* stack_frames[]; written and read by hand (stack_frames.c; a missing
 * group reads as the stack's own id) */
#define VT_SCHEMA_STACK_FRAMES(X) \
	X(id, COUNT, 0) \
	X(group, FIGURE_OR_NULL, 0) \
	X(frames, NESTED, 0)

/* group_peaks[]: a row of the listings (a device's listed stacks at one
 * place with one tag, two or more) and its own high point; locals:
 * device, row (struct group_row) */
#define VT_SCHEMA_GROUP_PEAK(X) \
	X(device, FIGURE_OR_NULL, VT_KNOWN_IF(device != VT_HOST_DEVICE, device)) \
	X(group, COUNT, row->group) \
	X(tag, STRING, vt_tag_name(row->tag)) \
	X(members, COUNT, row->members) \
	X(peak_bytes, COUNT, row->peak)

/* resources (null without CUPTI) */
#define VT_SCHEMA_RESOURCES(X) \
	X(events, NESTED, write_resource_events(json, cupti)) \
	X(dropped, FIGURE, cupti->dropped)

/* resources.events[]; locals: event */
#define VT_SCHEMA_RESOURCE_EVENT(X) \
	X(at_ns, FIGURE, event->at_ns) \
	X(event, NOTE, vt_resource_kind_name(event->kind)) \
	X(device, FIGURE_OR_NULL, VT_KNOWN_IF(event->device != VT_UNKNOWN_DEVICE, event->device)) \
	X(bytes, FIGURE, event->bytes)

/* tracer; locals: report, snapshot, counters. No tool reads it. */
#define VT_SCHEMA_TRACER(X) \
	X(version, NOTE, VRAMTRACE_VERSION) \
	X(sources, NESTED, write_sources(json, report->recording)) \
	X(duration_ns, FIGURE, snapshot->taken_ns) \
	X(events, FIGURE, counters->events) \
	X(deduplicated, FIGURE, counters->deduplicated) \
	X(unknown_frees, FIGURE, counters->unknown_frees) \
	X(graph_frees, FIGURE, counters->graph_frees) \
	X(dropped, FIGURE, counters->dropped) \
	X(untracked, FIGURE, counters->untracked) \
	X(failures_total, FIGURE, counters->failures_total) \
	X(failures_kept, FIGURE, snapshot->failure_count) \
	X(distinct_stacks, FIGURE, vt_stack_limit() - 1) \
	X(distinct_tags, FIGURE, vt_tag_limit() - 1) \
	X(tags_grouped, FIGURE, vt_tag_grouped()) \
	X(emergency, FLAG, report->emergency) \
	X(left_out, NESTED, write_left_out(json, report->left_out)) \
	X(nvml, NESTED, write_nvml(json, report->nvml)) \
	X(cupti, NESTED, write_cupti_status(json, report->cupti))

/* Where docs/report-format.md documents each list: S(heading, prefix,
 * list), the heading of its section (without backquotes) and how the
 * section spells the list's keys ("rows[].t_ns"). */
#define VT_SCHEMA_DOCUMENTED(S) \
	S("run", "", VT_SCHEMA_RUN) \
	S("run", "cuda.", VT_SCHEMA_CUDA) \
	S("devices", "", VT_SCHEMA_DEVICE) \
	S("devices", "", VT_SCHEMA_TOTALS) \
	S("devices", "", VT_SCHEMA_STACKS_AT_PEAK) \
	S("devices", "", VT_SCHEMA_INTERVAL) \
	S("devices", "", VT_SCHEMA_WATERMARK) \
	S("devices", "", VT_SCHEMA_CROSSING) \
	S("peak", "", VT_SCHEMA_PEAK) \
	S("kinds", "", VT_SCHEMA_KIND) \
	S("kinds", "", VT_SCHEMA_COUNTER) \
	S("tags", "", VT_SCHEMA_TAG) \
	S("tags", "", VT_SCHEMA_COUNTER) \
	S("stacks", "", VT_SCHEMA_STACK) \
	S("stacks", "", VT_SCHEMA_COUNTER) \
	S("leaks", "", VT_SCHEMA_LEAK) \
	S("failures", "", VT_SCHEMA_FAILURE) \
	S("failures", "", VT_SCHEMA_SNAPSHOT) \
	S("failures", "", VT_SCHEMA_TOP_STACK) \
	S("device_view", "", VT_SCHEMA_DEVICE_VIEW) \
	S("pools", "", VT_SCHEMA_RESERVE) \
	S("pools", "", VT_SCHEMA_POOL) \
	S("graph_memory", "", VT_SCHEMA_GRAPH_MEMORY) \
	S("timeline", "", VT_SCHEMA_TIMELINE) \
	S("timeline", "rows[].", VT_SCHEMA_ROW) \
	S("frames and stack_frames", "", VT_SCHEMA_FRAME) \
	S("frames and stack_frames", "", VT_SCHEMA_STACK_FRAMES) \
	S("group_peaks", "", VT_SCHEMA_GROUP_PEAK) \
	S("resources", "", VT_SCHEMA_RESOURCES) \
	S("resources", "events[].", VT_SCHEMA_RESOURCE_EVENT) \
	S("tracer", "", VT_SCHEMA_TRACER)

/* clang-format on */
