/* How every listing shows a stack, and which stacks are one row: the one
 * place this knowledge lives, for the text formats, folded, diff and the
 * HTML pages alike.
 *
 * A stack's shown frames are its frames less plumbing (core/plumbing.h),
 * inlined functions as frames of their own. Stacks whose shown frames are
 * at the same places (function, file and line) and that carry the same tag
 * are one group: one row, their figures combined. A brief view leads with
 * the innermost frame of the program's own code, the library frames inside
 * it folded into one mention ("via numba, 14 frames"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report_model.h"
#include "view_options.h"

/* A stack's shown frames, innermost first, into out (at most max); returns
 * how many it has, which may exceed max. */
size_t vt_stack_shown(const struct vt_report_model *report, int64_t id,
		      const struct vt_frame_model **out, size_t max);

/* Where a brief view of shown frames starts: lead is the index of the
 * program's own innermost frame (0 when none is the program's), and the
 * lead frames before it are folded as "via <via>". */
struct vt_stack_brief {
	size_t lead;
	char via[160];
};
void vt_stack_brief(const struct vt_frame_model *const *shown, size_t count,
		    struct vt_stack_brief *out);

/* A stack's place, the identity of its group and of its row in diff:
 * "function (file:line) < caller (file:line) ...", "(no frames)" without
 * any. */
const char *vt_stack_place(const struct vt_report_model *report, int64_t id, char *key,
			   size_t size);

/* The stack as a listing shows it, one frame a line after indent:
 * "at lead, via numba, 14 frames", its callers, "inlined in" for an
 * inlined function's caller, and "... N more frames" where it is cut. */
void vt_stack_print(FILE *out, const struct vt_report_model *report, int64_t id, const char *indent,
		    const struct vt_view_options *options);
/* The same in one line of at most width bytes ("a < b < c"), ending in
 * "..." where it is cut. */
const char *vt_stack_line(const struct vt_report_model *report, int64_t id,
			  const struct vt_view_options *options, size_t width, char *out,
			  size_t size);

/* What a brief view shows, for a page that draws the stack itself: the
 * picked frames as indices into the stack's own frames (plumbing
 * included), how many shown frames it folded before the first and left
 * after the last, and the fold's words ("via numba, 14 frames", "" when
 * none). */
struct vt_stack_picks {
	size_t index[64];
	size_t count, folded, left;
	char via[200];
};
void vt_stack_picks(const struct vt_report_model *report, int64_t id,
		    const struct vt_view_options *options, struct vt_stack_picks *out);

/* One row of a listing: the stacks at one place with one tag. */
struct vt_stack_group {
	int64_t id;      /* the member with the most bytes at the peak */
	const char *tag; /* the members' tag */
	size_t members;
	size_t members_at_peak; /* of them, those holding bytes at the peak */
	struct vt_counters sum; /* members' figures added; peak_bytes: the most the
				   group can have held at once (their own peaks added) */
	int64_t peak_low;       /* the least it held at its own high point: the largest
				   of a member's own peak, the group's bytes at the
				   device's peak and its bytes at exit; equal to
				   sum.peak_bytes when exact */
};

/* The owner's listed stacks as groups, most bytes at the peak first (then
 * the larger own peak, then the smaller id); *out is the caller's to free.
 * Returns how many, 0 (and *out NULL) for none or out of memory. */
size_t vt_stack_groups(const struct vt_report_model *report, const struct vt_owner *owner,
		       struct vt_stack_group **out);

/* The rank (from 1) of the group at each place with each tag, of the
 * first count groups: an index ((tag, place) -> rank) built once, so that
 * finding the row of each of n leaks is linear, not n times a scan of the
 * rows. NULL when out of memory. */
json_t *vt_stack_group_ranks(const struct vt_report_model *report,
			     const struct vt_stack_group *groups, size_t count);
/* The rank of the group with tag at the place of stack id, 0 for none. */
size_t vt_stack_group_rank(const struct vt_report_model *report, json_t *ranks, const char *tag,
			   int64_t id);

/* Whether a group's own peak is exact (one member, or bounds that meet). */
bool vt_stack_group_peak_exact(const struct vt_stack_group *group);

/* What a listing of the owner's stacks leaves out of its peak: stacks not
 * listed (their count, where the report says it) and their bytes, and bytes
 * allocated where no stack was taken. Listed bytes plus these are the
 * peak. */
struct vt_stack_rest {
	struct vt_maybe stacks;
	int64_t bytes, no_stack_bytes;
};
void vt_stack_rest(const struct vt_owner *owner, struct vt_stack_rest *out);
/* "4,076 more stacks, 128.75 GiB" (and "; 1.00 MiB with no stack"), into
 * buf; "" when nothing is left out. */
const char *vt_stack_rest_text(const struct vt_stack_rest *rest, char *buf, size_t size);

/* Leaks at one place with one tag are one row, as stacks are: first is
 * the row's first leak, with the row's bytes and allocations added. */
struct vt_leak_group {
	const struct vt_leak_model *first;
	int64_t bytes, allocations;
};
/* What was live at exit, the graphs' reservation (the driver's, never a
 * leak) apart: bytes and allocations as the leaks would add up to them. */
struct vt_live_at_exit {
	int64_t bytes, allocations, graph_reserved;
};
void vt_live_at_exit(const struct vt_owner *owner, struct vt_live_at_exit *out);

/* The owner's leaks as rows, largest first; *out is the caller's
 * to free. Returns how many, 0 (and *out NULL) for none or out of memory. */
size_t vt_leak_groups(const struct vt_report_model *report, const struct vt_owner *owner,
		      struct vt_leak_group **out);
