/* How much of each stack a listing shows (stack_view.h), as the report and
 * diff commands' --frames and --all-frames set it. */
#pragma once

#include <stdbool.h>

#define VT_VIEW_FRAMES 4 /* lines of a brief stack, unless asked otherwise */

struct vt_view_options {
	long frames;     /* lines per stack; 0 for VT_VIEW_FRAMES */
	bool all_frames; /* every shown frame, nothing folded or cut */
};
