#include "tags.h"
#include "memory.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lock.h"
#include "memory.h"
#include "utf8.h"

/* Names live in pages that never move, so that vt_tag_name reads them
 * without the lock while the table grows. */
#define PAGE_BITS  12
#define PAGE_SIZE  (1u << PAGE_BITS)
#define PAGE_COUNT (VT_MAX_TAGS / PAGE_SIZE)
#define FIRST_SIZE 8192 /* the index's first size; it doubles past half full */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void vt_tags_fork_prepare(void)
{
	if (!vt_tracer_busy) /* this thread may hold it: see lock.h */
		pthread_mutex_lock(&lock);
}

void vt_tags_fork_parent(void)
{
	if (!vt_tracer_busy)
		pthread_mutex_unlock(&lock);
}

void vt_tags_fork_child(void)
{
	pthread_mutex_init(&lock, NULL);
}

static _Atomic(const char *) *_Atomic pages[PAGE_COUNT];
/* Open addressing over tag ids (0 is an empty slot), under the lock. */
static uint32_t *table;
static uint32_t table_size;
static _Atomic uint32_t limit = 1;
static _Atomic uint64_t grouped;

static uint32_t hash(const char *name, size_t length)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < length; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h;
}

static const char *name_of(uint32_t id)
{
	_Atomic(const char *) *page =
		atomic_load_explicit(&pages[id >> PAGE_BITS], memory_order_acquire);
	return page ? atomic_load_explicit(&page[id & (PAGE_SIZE - 1)], memory_order_acquire)
		    : NULL;
}

static bool same(uint32_t id, const char *name, size_t length)
{
	const char *existing = name_of(id);
	return strlen(existing) == length && memcmp(existing, name, length) == 0;
}

/* The slot of name in table: its id's, or the empty one it would take. */
static uint32_t slot_of(const uint32_t *in, uint32_t size, const char *name, size_t length)
{
	uint32_t slot = hash(name, length) & (size - 1);
	while (in[slot] && !same(in[slot], name, length))
		slot = (slot + 1) & (size - 1);
	return slot;
}

/* Called with the lock held: room in the index for one more name. */
static bool index_has_room(void)
{
	uint32_t count = atomic_load_explicit(&limit, memory_order_relaxed);
	if (table && (count + 1) * 2 <= table_size)
		return true;
	uint32_t size = table ? table_size * 2 : FIRST_SIZE;
	uint32_t *bigger = calloc(size, sizeof(*bigger));
	if (!bigger)
		return false;
	for (uint32_t i = 0; table && i < table_size; i++)
		if (table[i]) {
			const char *name = name_of(table[i]);
			bigger[slot_of(bigger, size, name, strlen(name))] = table[i];
		}
	free(table);
	table = bigger;
	table_size = size;
	return true;
}

/* Called with the lock held: the new name's id, or VT_TAG_OTHER. */
static uint32_t add(const char *name, size_t length)
{
	uint32_t id = atomic_load_explicit(&limit, memory_order_relaxed);
	if (id >= VT_TAG_OTHER)
		return VT_TAG_OTHER;
	_Atomic(const char *) *page =
		atomic_load_explicit(&pages[id >> PAGE_BITS], memory_order_relaxed);
	if (!page) {
		page = calloc(PAGE_SIZE, sizeof(*page));
		if (!page)
			return VT_TAG_OTHER;
		atomic_store_explicit(&pages[id >> PAGE_BITS], page, memory_order_release);
	}
	char *copy = vt_mem_alloc(length + 1);
	if (!copy)
		return VT_TAG_OTHER;
	memcpy(copy, name, length);
	copy[length] = '\0';
	atomic_store_explicit(&page[id & (PAGE_SIZE - 1)], copy, memory_order_release);
	table[slot_of(table, table_size, name, length)] = id;
	atomic_store(&limit, id + 1);
	return id;
}

/* name as the report writes it, into out (VT_TAG_MAX_NAME + 1 bytes): its
 * first VT_TAG_MAX_NAME bytes, each byte that starts no UTF-8 sequence as
 * U+FFFD (the JSON writer's rule), cut at a character to fit. Names that
 * read the same in the report must be one tag: its tags are the keys of
 * objects (a timeline row's by_tag), where two equal keys leave a report
 * that no JSON reader takes, the final one or a live snapshot. */
static size_t as_written(const char *name, char *out)
{
	static const char replacement[] = "\xef\xbf\xbd";
	const unsigned char *s = (const unsigned char *)name;
	size_t length = strnlen(name, VT_TAG_MAX_NAME), used = 0;
	for (size_t i = 0; i < length;) {
		size_t sequence = s[i] < 0x80 ? 1 : vt_utf8_length(s + i, length - i);
		const char *piece = sequence ? name + i : replacement;
		size_t size = sequence ? sequence : sizeof(replacement) - 1;
		if (used + size > VT_TAG_MAX_NAME)
			break;
		memcpy(out + used, piece, size);
		used += size;
		i += sequence ? sequence : 1;
	}
	out[used] = '\0';
	return used;
}

uint32_t vt_tag_intern(const char *raw)
{
	if (!raw || !*raw)
		return VT_TAG_UNTAGGED;
	char name[VT_TAG_MAX_NAME + 1];
	size_t length = as_written(raw, name);
	/* The names the report gives the reserved ids are theirs. */
	if (strcmp(name, "untagged") == 0)
		return VT_TAG_UNTAGGED;
	if (strcmp(name, "other tags") == 0)
		return VT_TAG_OTHER;
	uint32_t id = VT_TAG_OTHER;
	pthread_mutex_lock(&lock);
	if (index_has_room()) {
		uint32_t slot = slot_of(table, table_size, name, length);
		id = table[slot] ? table[slot] : add(name, length);
	}
	pthread_mutex_unlock(&lock);
	if (id == VT_TAG_OTHER)
		atomic_fetch_add(&grouped, 1);
	return id;
}

const char *vt_tag_name(uint32_t id)
{
	if (id == VT_TAG_OTHER)
		return "other tags";
	const char *name = id < VT_MAX_TAGS ? name_of(id) : NULL;
	return name ? name : "untagged";
}

uint32_t vt_tag_limit(void)
{
	return atomic_load(&limit);
}

uint64_t vt_tag_grouped(void)
{
	return atomic_load(&grouped);
}
