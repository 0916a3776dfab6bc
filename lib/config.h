/* The one option table: every VRAMTRACE_* variable, read once when the
 * program first uses CUDA. A bad value or unknown name gets one warning and
 * the default. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#define VT_CONFIG_DEFAULT_OUTPUT  "vramtrace.%p.json"
#define VT_CONFIG_MAX_STACK_DEPTH 128

/* Which sources record allocations: the symbol hooks, CUPTI's callbacks,
 * or both (each allocation still counted once). */
enum vt_sources {
	VT_SOURCES_HOOKS,
	VT_SOURCES_CUPTI,
	VT_SOURCES_BOTH,
};

/* A mark given as bytes, or as hundredths of a percent of capacity. */
struct vt_level {
	uint64_t bytes;
	uint32_t hundredths; /* used when bytes is 0 */
};

/* VRAMTRACE_WATERMARK=HIGH[,LOW]: off when high is zero; LOW defaults to
 * 90% of HIGH. */
struct vt_watermark_setting {
	struct vt_level high, low;
	bool has_low;
};

/* A mark's bytes on a device of capacity bytes (0 when unknown). */
uint64_t vt_level_bytes(const struct vt_level *mark, uint64_t capacity);

struct vt_config {
	char output[PATH_MAX];      /* VRAMTRACE_OUTPUT: path template */
	char labels[4096];          /* VRAMTRACE_LABEL: key=value,key=value */
	bool summary;               /* VRAMTRACE_SUMMARY: text summary on stderr */
	char report_list[PATH_MAX]; /* VRAMTRACE_REPORT_LIST: where `vramtrace run`
				       learns which reports were written */
	unsigned stack_depth;       /* VRAMTRACE_STACK_DEPTH: frames kept, 0 is off */
	unsigned top;               /* VRAMTRACE_TOP: stacks and leaks listed */
	unsigned oom_snapshots;     /* VRAMTRACE_OOM_SNAPSHOTS: per device */
	unsigned history;           /* VRAMTRACE_HISTORY: live-byte changes kept per
				       device for the timeline's moments */
	bool nvtx_path;             /* VRAMTRACE_NVTX=path: tag "outer/inner" */
	char rules[4096];           /* VRAMTRACE_RULES: pattern=tag;... or a file */
	unsigned checkpoint_s;      /* VRAMTRACE_CHECKPOINT_S: rewrite period, 0 off */
	bool follow_fork;           /* VRAMTRACE_FOLLOW_FORK: children trace anew */
	bool redact_args;           /* VRAMTRACE_REDACT_ARGS: only argv[0] recorded */
	unsigned sample_ms;         /* VRAMTRACE_SAMPLE_MS: NVML sampling period, 0 off */
	enum vt_sources sources;    /* VRAMTRACE_SOURCES: hooks, cupti or both */
	bool python;                /* VRAMTRACE_PYTHON: Python frames in stacks */
	unsigned python_depth;      /* VRAMTRACE_PYTHON_DEPTH: Python frames kept */
	bool control;               /* VRAMTRACE_CONTROL: the control socket */
	struct vt_watermark_setting watermark; /* VRAMTRACE_WATERMARK */
	bool framework_cache_off;              /* VRAMTRACE_FRAMEWORK_CACHE=off: set by
						  `vramtrace run --no-framework-cache` */
};

void vt_config_load(struct vt_config *config);
/* The process's configuration, read from the environment on first use
 * (errno kept); the same every call after. */
const struct vt_config *vt_config(void);
