/* The checks across fields of a report (or of a merged one and its ranks)
 * that no field's own check can make: a part never above its whole, a name
 * listed once, a merged summary that agrees with its ranks. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "report_model.h"

/* The model of a report (merged NULL) or of a merged one (report NULL):
 * false, with the first disagreement (naming its field) in error. */
bool vt_report_relations(const struct vt_report_model *report, const struct vt_merged *merged,
			 char *error, size_t size);
