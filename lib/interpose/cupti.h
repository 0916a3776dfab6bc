/* The CUPTI source: CUPTI's driver-API callbacks for every observed entry
 * point, recorded through the same observers as the hooks, and its
 * resource domain (contexts, modules), kept as events for the report
 * (sources/cupti_view.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../config.h"
#include "../core/views.h"

/* Subscribes when sources asks for CUPTI; on any failure (another
 * subscriber holds CUPTI: error 39) warns once and leaves the hooks
 * recording. Sets which sources record. Called once activation is done;
 * start_ns is when the tracer started, by vt_clock_ns. */
void vt_cupti_start(enum vt_sources sources, uint64_t start_ns);
