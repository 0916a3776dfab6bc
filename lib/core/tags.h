/* Category tags, interned: a tag is a small number everywhere but in the
 * report. Tag 0 is "untagged". Process-wide, like the names they stand for.
 *
 * There is room for VT_MAX_TAGS - 2 names (1,048,574): a program that
 * names more (a tag per request, an NVTX range per operator with a
 * sequence number in it) has the rest grouped under VT_TAG_OTHER, "other
 * tags", counted by vt_tag_grouped, so no allocation is silently
 * untagged. */
#pragma once

#include <stdint.h>

#define VT_TAG_UNTAGGED 0
#define VT_MAX_TAGS     (1u << 20) /* a tag id takes 20 bits in the ledger */
#define VT_TAG_OTHER    (VT_MAX_TAGS - 1)
#define VT_TAG_MAX_NAME 255

/* The id of name as the report writes it (its first VT_TAG_MAX_NAME bytes,
 * a byte that is no UTF-8 as U+FFFD): names that read alike there are one
 * tag. VT_TAG_UNTAGGED for NULL, "" and "untagged", VT_TAG_OTHER for
 * "other tags" and once no room (or no host memory) is left for another
 * name. Takes a lock: call it when a tag is pushed, never per allocation. */
uint32_t vt_tag_intern(const char *name);
/* The name of id; "untagged" for 0 or an id never handed out. Lock-free. */
const char *vt_tag_name(uint32_t id);
/* One past the largest id handed out so far, VT_TAG_OTHER aside. */
uint32_t vt_tag_limit(void);
/* How many times a name new to the table was grouped under VT_TAG_OTHER. */
uint64_t vt_tag_grouped(void);

/* fork (lifecycle/fork.c): the lock is held across it, so a child never
 * inherits it taken. */
void vt_tags_fork_prepare(void);
void vt_tags_fork_parent(void);
void vt_tags_fork_child(void);
