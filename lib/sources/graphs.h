/* Graph memory: what CUDA graphs' allocation nodes hold on each device,
 * read with the real cuDeviceGetGraphMemAttribute after every graph launch
 * and cuDeviceGraphMemTrim, once the program has added an allocation node
 * for that device (so programs without graph memory pay nothing), or
 * captured a stream-ordered allocation into a graph. Graph
 * memory is allocated by launches, not by any allocation call, so it is
 * shown beside the tracked totals, never in them. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "nvml_view.h"
#include "../core/views.h"

/* After cuGraphAddMemAllocNode succeeded for device. */
void vt_graphs_note_device(int device);
/* A graph allocation the program made (an allocation node added, or a
 * stream-ordered allocation captured) at address on device. */
void vt_graphs_note_allocation(int device, uint64_t address);
/* Whether address is a graph allocation's: its free outside the graph
 * (cudaFree, cudaFreeAsync) frees graph memory. */
bool vt_graphs_is_allocation(uint64_t address);
/* Whether a stream-ordered allocation or free on stream is being captured
 * into a graph (which makes it an allocation node, not an allocation).
 * Asks the driver only once the program has begun a capture. per_thread:
 * the call was a _ptsz flavour, whose NULL stream is the thread's. */
bool vt_graphs_capturing(void *stream, bool per_thread);
/* After a graph launch or a trim (api): reads the devices' graph memory,
 * and records its reserved bytes as the kind graph where they changed. */
void vt_graphs_sample(const char *api);
/* Copies VT_VIEW_DEVICES entries. */
void vt_graphs_read(struct vt_graph_view *views);
/* Forgets everything, for the child after fork. */
void vt_graphs_reset(void);
