#include "stacks.h"
#include "memory.h"
#include "thread_space.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lock.h"
#include "rules.h"
#include "tags.h"

#define SHARDS        64
#define CHUNK_RECORDS 4096
#define MAX_CHUNKS    4096 /* up to 16 million distinct stacks */
#define CACHE_SLOTS   256
#define RULE_UNSET    0xFFFFFFFFu

struct record {
	uint64_t hash;
	const uintptr_t *frames;
	uint32_t depth;
	uint32_t tag;              /* the tag it was interned with: part of what it stands for */
	_Atomic uint32_t rule_tag; /* for tag VT_TAG_UNTAGGED: the module rule's, once decided */
	_Atomic bool ready;        /* set last: a reader never sees half a record */
};

struct shard {
	pthread_mutex_t lock;
	uint64_t capacity;
	uint64_t count;
	uint32_t *ids; /* open addressing over ids; 0 is empty */
} __attribute__((aligned(64)));

static struct shard shards[SHARDS] = {[0 ... SHARDS - 1] = {.lock = PTHREAD_MUTEX_INITIALIZER}};
static _Atomic(struct record *) chunks[MAX_CHUNKS];
static _Atomic uint32_t next_id = 1;

struct cache_slot {
	uint64_t hash;
	uint32_t id;
};
/* Per thread, in the thread's space (thread_space.h), not in static TLS. */
_Static_assert(sizeof(struct cache_slot) * CACHE_SLOTS <= VT_CACHE_STACKS_BYTES,
	       "the stack cache fits its per-thread space");

void vt_stacks_fork_prepare(void)
{
	if (vt_tracer_busy)
		return; /* this thread may hold one: see lock.h */
	for (int i = 0; i < SHARDS; i++)
		pthread_mutex_lock(&shards[i].lock);
}

void vt_stacks_fork_parent(void)
{
	if (vt_tracer_busy)
		return;
	for (int i = SHARDS - 1; i >= 0; i--)
		pthread_mutex_unlock(&shards[i].lock);
}

void vt_stacks_fork_child(void)
{
	for (int i = 0; i < SHARDS; i++)
		pthread_mutex_init(&shards[i].lock, NULL);
}

static uint64_t hash_frames(const uintptr_t *frames, unsigned depth, uint32_t tag)
{
	uint64_t h = 0x84222325cbf29ce4ull ^ depth ^ ((uint64_t)tag << 32);
	for (unsigned i = 0; i < depth; i++) {
		h ^= frames[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

static struct record *record_of(uint32_t id)
{
	if (id == VT_STACK_NONE || id >= atomic_load_explicit(&next_id, memory_order_acquire))
		return NULL;
	struct record *chunk =
		atomic_load_explicit(&chunks[id / CHUNK_RECORDS], memory_order_acquire);
	struct record *record = chunk ? &chunk[id % CHUNK_RECORDS] : NULL;
	return record && atomic_load_explicit(&record->ready, memory_order_acquire) ? record : NULL;
}

static bool matches(uint32_t id, uint64_t hash, const uintptr_t *frames, unsigned depth,
		    uint32_t tag)
{
	const struct record *record = record_of(id);
	return record && record->hash == hash && record->depth == depth && record->tag == tag &&
	       memcmp(record->frames, frames, depth * sizeof(*frames)) == 0;
}

static struct record *chunk_for(uint32_t id)
{
	uint32_t index = id / CHUNK_RECORDS;
	if (index >= MAX_CHUNKS)
		return NULL;
	struct record *chunk = atomic_load_explicit(&chunks[index], memory_order_acquire);
	if (chunk)
		return chunk;
	struct record *fresh = vt_mem_calloc(CHUNK_RECORDS, sizeof(*fresh));
	if (!fresh)
		return NULL;
	if (!atomic_compare_exchange_strong(&chunks[index], &chunk, fresh)) {
		vt_mem_free(fresh);
		return chunk; /* another thread's chunk won */
	}
	return fresh;
}

/* Called with the shard locked: stores a new record and returns its id. */
static uint32_t publish(uint64_t hash, const uintptr_t *frames, unsigned depth, uint32_t tag)
{
	uintptr_t *copy = vt_mem_alloc(depth * sizeof(*copy));
	if (!copy)
		return VT_STACK_NONE;
	memcpy(copy, frames, depth * sizeof(*copy));
	uint32_t id = atomic_fetch_add(&next_id, 1);
	struct record *chunk = chunk_for(id);
	if (!chunk) {
		vt_mem_free(copy);
		return VT_STACK_NONE;
	}
	struct record *record = &chunk[id % CHUNK_RECORDS];
	record->hash = hash;
	record->frames = copy;
	record->depth = depth;
	record->tag = tag;
	atomic_store_explicit(&record->rule_tag, RULE_UNSET, memory_order_relaxed);
	atomic_store_explicit(&record->ready, true, memory_order_release);
	return id;
}

static bool grow(struct shard *shard)
{
	uint64_t capacity = shard->capacity ? shard->capacity * 2 : 256;
	uint32_t *ids = vt_mem_calloc(capacity, sizeof(*ids));
	if (!ids)
		return false;
	for (uint64_t i = 0; i < shard->capacity; i++) {
		uint32_t id = shard->ids[i];
		if (!id)
			continue;
		uint64_t slot = record_of(id)->hash & (capacity - 1);
		while (ids[slot])
			slot = (slot + 1) & (capacity - 1);
		ids[slot] = id;
	}
	vt_mem_free(shard->ids);
	shard->ids = ids;
	shard->capacity = capacity;
	return true;
}

static uint32_t find_or_add(uint64_t hash, const uintptr_t *frames, unsigned depth, uint32_t tag)
{
	struct shard *shard = &shards[hash >> 58];
	uint32_t id = VT_STACK_NONE;
	pthread_mutex_lock(&shard->lock);
	if ((shard->count + 1) * 2 <= shard->capacity || grow(shard)) {
		uint64_t slot = hash & (shard->capacity - 1);
		while (shard->ids[slot] && !matches(shard->ids[slot], hash, frames, depth, tag))
			slot = (slot + 1) & (shard->capacity - 1);
		id = shard->ids[slot];
		if (!id) {
			id = publish(hash, frames, depth, tag);
			if (id) {
				shard->ids[slot] = id;
				shard->count++;
			}
		}
	}
	pthread_mutex_unlock(&shard->lock);
	return id;
}

/* The stack this thread interned last: a thread's next stack is most
 * often the same one, which a compare finds for less than the hash. An id
 * names the same frames and tag for the rest of the process. */
static __thread uint32_t last_interned __attribute__((tls_model("initial-exec")));

static bool is_last_interned(uint32_t last, const uintptr_t *frames, unsigned depth, uint32_t tag)
{
	const struct record *record = record_of(last);
	return record && record->depth == depth && record->tag == tag &&
	       memcmp(record->frames, frames, depth * sizeof(*frames)) == 0;
}

uint32_t vt_stack_intern(const uintptr_t *frames, unsigned depth, uint32_t tag)
{
	if (depth == 0)
		return VT_STACK_NONE;
	if (depth > VT_MAX_STACK_FRAMES)
		depth = VT_MAX_STACK_FRAMES;
	uint32_t last = last_interned;
	if (is_last_interned(last, frames, depth, tag))
		return last;
	uint64_t hash = hash_frames(frames, depth, tag);
	struct cache_slot *cache = vt_thread_cache(VT_CACHE_STACKS);
	struct cache_slot *slot = cache ? &cache[hash % CACHE_SLOTS] : NULL;
	uint32_t id = slot && slot->hash == hash && matches(slot->id, hash, frames, depth, tag)
			      ? slot->id
			      : find_or_add(hash, frames, depth, tag);
	if (id && slot)
		*slot = (struct cache_slot){hash, id};
	if (id)
		last_interned = id;
	return id;
}

unsigned vt_stack_frames(uint32_t id, const uintptr_t **frames)
{
	const struct record *record = record_of(id);
	*frames = record ? record->frames : NULL;
	return record ? record->depth : 0;
}

uint32_t vt_stack_limit(void)
{
	return atomic_load(&next_id);
}

uint32_t vt_stack_tag(uint32_t id)
{
	struct record *record = record_of(id);
	if (!record)
		return VT_TAG_UNTAGGED;
	if (record->tag != VT_TAG_UNTAGGED)
		return record->tag;
	uint32_t rule = atomic_load_explicit(&record->rule_tag, memory_order_acquire);
	if (rule != RULE_UNSET)
		return rule;
	/* Two threads may both decide it: the rules give both the same. */
	rule = vt_rules_tag_for_stack(record->frames, record->depth);
	atomic_store_explicit(&record->rule_tag, rule, memory_order_release);
	return rule;
}

struct retagging {
	uint32_t id, tag, found;
};

static void find_with_tag(void *argument)
{
	struct retagging *r = argument;
	const struct record *record = record_of(r->id);
	uint32_t found = record ? vt_stack_intern(record->frames, record->depth, r->tag) : 0;
	if (found) {
		r->found = found;
		r->tag = vt_stack_tag(found);
	}
}

/* On the tracer's stack, as at an allocation: the rules may need more of
 * it than the program's thread has. */
uint32_t vt_stack_with_tag(uint32_t id, uint32_t *tag)
{
	struct retagging r = {id, *tag, id};
	if (id != VT_STACK_NONE)
		vt_thread_run_on_own_stack(find_with_tag, &r);
	*tag = r.tag;
	return r.found;
}
