/* The report itself, re-indented; --device keeps only that device. */
#include "formats.h"

void vt_format_json(const struct vt_report_model *report, const struct vt_format_options *options,
		    FILE *out)
{
	json_t *shown = vt_selected_document(report, options);
	if (!shown)
		return;
	vt_print_json(shown, out);
	json_decref(shown);
}
