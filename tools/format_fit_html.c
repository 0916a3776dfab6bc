/* vramtrace fit as one self-contained page: the fit's document as data,
 * drawn by the pages' script (tools/html/fit.js): the formulas, residuals,
 * predictions and largest fit in numbers, then each model against each
 * variable. */
#include "formats.h"

void vt_fit_html(json_t *fit, FILE *out)
{
	vt_html_begin(out);
	json_t *data = json_pack("{s:s, s:O}", "page", "fit", "fit", fit);
	vt_html_data(out, data);
	json_decref(data);
	vt_html_end(out);
}
