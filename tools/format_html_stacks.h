/* The stacks as the report page draws them (format_html_stacks.c). */
#pragma once

#include <jansson.h>

#include "report_model.h"
#include "view_options.h"

/* Adds to document (a copy of report's own, its devices perhaps
 * selected) the marks, brief views, rows and remainders the page draws.
 * top > 0 (report --top): the first top rows of stacks and of leaks, the
 * rest counted as not listed, and of the stacks only those the page
 * names (the rows', the failures', a bounded number of the timeline's
 * moments'); 0: all. */
void vt_html_stack_views(const struct vt_report_model *report, json_t *document,
			 const struct vt_view_options *view, long top);
