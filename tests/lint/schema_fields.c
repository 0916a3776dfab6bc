/* Expanded by the preprocessor alone (never compiled): each list of
 * report_schema.h as "@ heading prefix key key ...", for
 * schema_documented.py. */
#include "../../lib/report/report_schema.h"

#define FIELD_NAME(key, type, value)   key
#define SECTION(heading, prefix, list) @heading prefix list(FIELD_NAME)

VT_SCHEMA_DOCUMENTED(SECTION)
