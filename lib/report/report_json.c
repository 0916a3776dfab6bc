#include <string.h>

#include "../core/event.h"
#include "cuda_errors.h"
#include "json_writer.h"
#include "report.h"

static void write_command(struct vt_json *json, const struct vt_run *run)
{
	vt_json_begin_array(json, "command");
	for (size_t at = 0; at < run->command_size;) {
		size_t length = strnlen(run->command + at, run->command_size - at);
		vt_json_string_n(json, NULL, run->command + at, length);
		at += length + 1;
	}
	vt_json_end_array(json);
}

static void write_labels(struct vt_json *json, const char *labels)
{
	vt_json_begin_object(json, "labels");
	for (const char *item = labels; *item;) {
		const char *end = strchr(item, ',');
		size_t length = end ? (size_t)(end - item) : strlen(item);
		const char *equals = memchr(item, '=', length);
		if (equals) {
			char key[256];
			size_t key_length = (size_t)(equals - item);
			if (key_length >= sizeof(key))
				key_length = sizeof(key) - 1;
			memcpy(key, item, key_length);
			key[key_length] = '\0';
			vt_json_string_n(json, key, equals + 1, length - key_length - 1);
		}
		item += length + (end ? 1 : 0);
	}
	vt_json_end_object(json);
}

static void write_optional_int(struct vt_json *json, const char *key, int value)
{
	if (value)
		vt_json_i64(json, key, value);
	else
		vt_json_null(json, key);
}

static void write_run(struct vt_json *json, const struct vt_run *run)
{
	vt_json_begin_object(json, "run");
	write_command(json, run);
	write_labels(json, run->labels);
	vt_json_i64(json, "pid", run->pid);
	vt_json_string(json, "host", run->host);
	vt_json_string(json, "rank", run->rank[0] ? run->rank : NULL);
	vt_json_string(json, "start", run->start);
	vt_json_string(json, "end", run->end);
	vt_json_string(json, "ended_by", run->ended_by);
	vt_json_begin_object(json, "cuda");
	write_optional_int(json, "runtime", run->cuda.runtime_version);
	write_optional_int(json, "driver", run->cuda.driver_version);
	vt_json_i64(json, "device_count", run->cuda.device_count);
	vt_json_end_object(json);
	vt_json_end_object(json);
}

static void write_peak(struct vt_json *json, const struct vt_device_stats *stats)
{
	vt_json_begin_object(json, "peak");
	vt_json_u64(json, "bytes", stats->peak);
	vt_json_u64(json, "at_ns", stats->peak_ns);
	vt_json_u64(json, "event", stats->peak_event);
	vt_json_string(json, "api", stats->peak_api);
	vt_json_string(json, "driver_api", stats->peak_driver_api);
	vt_json_end_object(json);
}

static void write_kinds(struct vt_json *json, const struct vt_device_stats *stats)
{
	vt_json_begin_array(json, "kinds");
	for (int k = 0; k < VT_KIND_COUNT; k++) {
		const struct vt_kind_stats *kind = &stats->kinds[k];
		if (kind->allocs == 0)
			continue;
		vt_json_begin_object(json, NULL);
		vt_json_string(json, "kind", vt_kind_name((enum vt_kind)k));
		vt_json_u64(json, "peak_bytes", kind->peak);
		vt_json_u64(json, "at_peak_bytes", kind->at_peak);
		vt_json_u64(json, "live_at_exit_bytes", kind->live);
		vt_json_u64(json, "allocations", kind->allocs);
		vt_json_u64(json, "frees", kind->frees);
		vt_json_u64(json, "bytes_allocated", kind->bytes_allocated);
		vt_json_end_object(json);
	}
	vt_json_end_array(json);
}

static void write_failures(struct vt_json *json, const struct vt_snapshot *snapshot, int device)
{
	vt_json_begin_array(json, "failures");
	for (unsigned i = 0; i < snapshot->failure_count; i++) {
		const struct vt_failure *failure = &snapshot->failures[i];
		if (failure->device != device)
			continue;
		vt_json_begin_object(json, NULL);
		vt_json_u64(json, "bytes", failure->bytes);
		vt_json_string(json, "kind", vt_kind_name(failure->kind));
		vt_json_i64(json, "error", failure->error);
		vt_json_string(json, "error_name", vt_cuda_error_name(failure->error));
		vt_json_string(json, "api", failure->api);
		vt_json_string(json, "driver_api", failure->driver_api);
		vt_json_u64(json, "at_ns", failure->at_ns);
		vt_json_u64(json, "live_bytes", failure->live_bytes);
		vt_json_end_object(json);
	}
	vt_json_end_array(json);
}

/* The numbers shared by a device and the host section. */
static void write_totals(struct vt_json *json, const struct vt_snapshot *snapshot,
			 const struct vt_device_stats *stats, int device)
{
	write_peak(json, stats);
	vt_json_u64(json, "live_at_exit_bytes", stats->live);
	vt_json_u64(json, "live_at_exit_allocations", stats->live_count);
	vt_json_u64(json, "allocations", stats->allocs);
	vt_json_u64(json, "frees", stats->frees);
	vt_json_u64(json, "failed_allocations", stats->failures);
	vt_json_u64(json, "bytes_allocated", stats->bytes_allocated);
	write_kinds(json, stats);
	write_failures(json, snapshot, device);
}

static void write_device(struct vt_json *json, const struct vt_report *report, int device)
{
	const struct vt_device_info *info = &report->devices[device];
	vt_json_begin_object(json, NULL);
	vt_json_i64(json, "ordinal", device);
	vt_json_string(json, "name", info->known ? info->name : NULL);
	vt_json_string(json, "pci_bus_id", info->known ? info->pci_bus_id : NULL);
	if (info->known && info->capacity)
		vt_json_u64(json, "capacity_bytes", info->capacity);
	else
		vt_json_null(json, "capacity_bytes");
	write_totals(json, report->snapshot, &report->snapshot->devices[device], device);
	vt_json_end_object(json);
}

static void write_tracer(struct vt_json *json, const struct vt_snapshot *snapshot)
{
	const struct vt_tracer_counters *counters = &snapshot->counters;
	vt_json_begin_object(json, "tracer");
	vt_json_string(json, "version", VRAMTRACE_VERSION);
	vt_json_begin_array(json, "sources");
	vt_json_string(json, NULL, "hooks");
	vt_json_end_array(json);
	vt_json_u64(json, "duration_ns", snapshot->taken_ns);
	vt_json_u64(json, "events", counters->events);
	vt_json_u64(json, "deduplicated", counters->deduplicated);
	vt_json_u64(json, "unknown_frees", counters->unknown_frees);
	vt_json_u64(json, "dropped", counters->dropped);
	vt_json_u64(json, "untracked", counters->untracked);
	vt_json_u64(json, "failures_total", counters->failures_total);
	vt_json_u64(json, "failures_kept", snapshot->failure_count);
	vt_json_end_object(json);
}

void vt_report_write_json(const struct vt_report *report, FILE *out)
{
	struct vt_json json;
	vt_json_init(&json, out);
	vt_json_begin_object(&json, NULL);
	vt_json_string(&json, "schema", VT_REPORT_SCHEMA);
	write_run(&json, report->run);
	vt_json_begin_array(&json, "devices");
	for (int d = 0; d < VT_MAX_DEVICES; d++)
		if (report->snapshot->devices[d].seen)
			write_device(&json, report, d);
	vt_json_end_array(&json);
	vt_json_begin_object(&json, "host");
	write_totals(&json, report->snapshot, &report->snapshot->host, VT_HOST_DEVICE);
	vt_json_end_object(&json);
	write_tracer(&json, report->snapshot);
	vt_json_end_object(&json);
}
