/* vramtrace: shows where GPU memory goes in any CUDA program.
 *
 * The library needs no code change: load it with
 *     LD_PRELOAD=libvramtrace.so program      or      vramtrace run -- program
 * and it writes a report at exit (docs/report-format.md).
 *
 * This header is safe in any C or C++ program and adds no link dependency. */
#ifndef VRAMTRACE_H
#define VRAMTRACE_H

#define VRAMTRACE_VERSION_MAJOR 0
#define VRAMTRACE_VERSION_MINOR 1
#define VRAMTRACE_VERSION_PATCH 0

/* The report's "schema" field for the format this version writes. */
#define VRAMTRACE_REPORT_SCHEMA "vramtrace/1"

#endif
