/* The stacks as the report page draws them (format_html_stacks.c). */
#pragma once

#include <jansson.h>

#include "report_model.h"
#include "view_options.h"

/* Adds to document (a copy of report's own, its devices perhaps
 * selected) the marks, brief views, rows and remainders the page draws. */
void vt_html_stack_views(const struct vt_report_model *report, json_t *document,
			 const struct vt_view_options *view);
