/* Category tags, interned: a tag is a small number everywhere but in the
 * report. Tag 0 is "untagged". Process-wide, like the names they stand for. */
#pragma once

#include <stdint.h>

#define VT_TAG_UNTAGGED 0
#define VT_MAX_TAGS     4096
#define VT_TAG_MAX_NAME 255

/* The id of name (truncated to VT_TAG_MAX_NAME bytes); VT_TAG_UNTAGGED for
 * NULL, "" or once VT_MAX_TAGS names exist. Takes a lock: call it when a
 * tag is pushed, never per allocation. */
uint16_t vt_tag_intern(const char *name);
/* The name of id; "untagged" for 0 or an id never handed out. Lock-free. */
const char *vt_tag_name(uint16_t id);
/* One past the largest id handed out so far. */
uint16_t vt_tag_limit(void);
