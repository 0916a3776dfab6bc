/* The one way a report is written, whatever asks for it: collect a
 * snapshot (collect.c), put it where the kind says, release it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum vt_write_kind {
	/* This process's file for good (exit, exec), then the summary. */
	VT_WRITE_FINAL,
	/* The same from inside a CUDA call, whose locks the driver may hold:
	 * the driver is not asked. */
	VT_WRITE_FINAL_NO_DRIVER,
	/* This process's file, replaced by the next. */
	VT_WRITE_CHECKPOINT,
	/* A file of its own (vramtrace_dump): to.path, expanded as a dump's
	 * (NULL or "": the next dump name beside the report). */
	VT_WRITE_DUMP,
	/* To an open descriptor (the control endpoint's client): to.fd. */
	VT_WRITE_SNAPSHOT,
	/* From a signal handler that ends the process: this process's file,
	 * no lock waited on for long, no allocation, then one line said. */
	VT_WRITE_SIGNAL,
	/* The same from a handler the process may outlive (abort() past a
	 * program's SIGABRT handler): replaced by the next, nothing said. */
	VT_WRITE_SIGNAL_SURVIVABLE,
};

struct vt_write_to {
	const char *path; /* VT_WRITE_DUMP */
	int fd;           /* VT_WRITE_SNAPSHOT */
	bool reset_peak;  /* VT_WRITE_SNAPSHOT: a new peak interval once taken */
	/* VT_WRITE_SNAPSHOT: CLOCK_MONOTONIC ns after which writing to fd
	 * stops (vt_report_write_json_to_socket). */
	uint64_t deadline_ns;
};

/* The report of this moment, ended_by why ("running" while the program
 * runs). The caller holds the tracer's recursion guard; the final and
 * checkpoint kinds hold the report lock. */
bool vt_write(enum vt_write_kind kind, const char *why, const struct vt_write_to *to);
/* At activation, with stacks to name: loads what naming them takes now,
 * while the host has memory, rather than at the report. */
void vt_write_prepare_symbols(void);
