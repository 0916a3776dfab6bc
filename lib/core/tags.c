#include "tags.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_SIZE (VT_MAX_TAGS * 2) /* open addressing, never over half full */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

/* The lock is held across fork, so a child never inherits it taken. */
static void before_fork(void)
{
	pthread_mutex_lock(&lock);
}

static void after_fork_in_parent(void)
{
	pthread_mutex_unlock(&lock);
}

static void after_fork_in_child(void)
{
	pthread_mutex_init(&lock, NULL);
}

static void watch_fork(void)
{
	pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}
static _Atomic(const char *) names[VT_MAX_TAGS];
static uint16_t table[TABLE_SIZE]; /* tag ids; 0 is an empty slot */
static _Atomic uint16_t limit = 1;

static uint32_t hash(const char *name, size_t length)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < length; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h;
}

static bool same(uint16_t id, const char *name, size_t length)
{
	const char *existing = atomic_load_explicit(&names[id], memory_order_relaxed);
	return strlen(existing) == length && memcmp(existing, name, length) == 0;
}

uint16_t vt_tag_intern(const char *name)
{
	if (!name || !*name)
		return VT_TAG_UNTAGGED;
	size_t length = strnlen(name, VT_TAG_MAX_NAME);
	uint16_t id = VT_TAG_UNTAGGED;
	pthread_once(&fork_once, watch_fork);
	pthread_mutex_lock(&lock);
	uint32_t slot = hash(name, length) % TABLE_SIZE;
	while (table[slot] && !same(table[slot], name, length))
		slot = (slot + 1) % TABLE_SIZE;
	if (table[slot]) {
		id = table[slot];
	} else if (atomic_load(&limit) < VT_MAX_TAGS) {
		char *copy = malloc(length + 1);
		if (copy) {
			memcpy(copy, name, length);
			copy[length] = '\0';
			id = atomic_load(&limit);
			atomic_store_explicit(&names[id], copy, memory_order_release);
			table[slot] = id;
			atomic_store(&limit, (uint16_t)(id + 1));
		}
	}
	pthread_mutex_unlock(&lock);
	return id;
}

const char *vt_tag_name(uint16_t id)
{
	const char *name =
		id < VT_MAX_TAGS ? atomic_load_explicit(&names[id], memory_order_acquire) : NULL;
	return name ? name : "untagged";
}

uint16_t vt_tag_limit(void)
{
	return atomic_load(&limit);
}
