/* The core under 16 threads on 2 devices, written without Criterion so it
 * also runs under ThreadSanitizer: allocating, freeing, tagging, interning
 * stacks and taking snapshots (what a dump does) all at once, then exact
 * totals. Exits non-zero on the first wrong number. */
#include <pthread.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "leaks.h"
#include "lock.h"
#include "stacks.h"
#include "tag_stack.h"
#include "tags.h"
#include "tracker.h"

#define THREADS 16
#define ROUNDS  4000

static struct vt_tracker tracker;
static atomic_int done;

static void *work(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	char name[32];
	snprintf(name, sizeof(name), "thread%lu", (unsigned long)id);
	uint32_t own = vt_tag_intern(name), scratch = vt_tag_intern("scratch");
	uintptr_t frames[3] = {0x1000 + id % 4, 0x2000, 0x3000};
	int device = (int)(id % 2);
	struct vt_event kept = {VT_OP_ALLOC,
				VT_KIND_DEVICE,
				device,
				(id + 1) << 40,
				(id + 1) << 20,
				0,
				"a",
				"a",
				own,
				vt_stack_intern(frames, 3, own)};
	vt_tracker_record(&tracker, &kept);
	for (uint64_t i = 0; i < ROUNDS; i++) {
		vt_tag_push(VT_TAG_FROM_API, scratch);
		uint64_t address = ((id + 1) << 40) + (i + 1) * 4096;
		struct vt_event alloc = {VT_OP_ALLOC,
					 VT_KIND_ASYNC,
					 device,
					 address,
					 4096,
					 0,
					 "a",
					 "a",
					 vt_tag_current(),
					 vt_stack_intern(frames, 1 + (unsigned)(i % 3), scratch)};
		vt_tracker_record(&tracker, &alloc);
		vt_tag_pop(VT_TAG_FROM_API);
		if (i % 100 == 0)
			vt_tracker_retag(&tracker, address, own);
		struct vt_event release = {VT_OP_FREE, VT_KIND_DEVICE, device, address, 0, 0, "f",
					   "f"};
		vt_tracker_record(&tracker, &release);
	}
	return NULL;
}

static atomic_uint cuts, contradictions, partial_peeks;

/* Whether a snapshot agrees with itself: events with counts, and (when
 * leaks is given) the leaks with the live bytes. */
static bool agrees(const struct vt_snapshot *s, const struct vt_leaks *leaks)
{
	uint64_t counted =
		s->counters.deduplicated + s->counters.unknown_frees + s->counters.dropped;
	uint64_t live = s->host.live, count = s->host.live_count;
	counted += s->host.allocs + s->host.frees + s->host.failures;
	for (int d = 0; d < VT_MAX_DEVICES; d++) {
		const struct vt_device_stats *stats = &s->devices[d];
		counted += stats->allocs + stats->frees + stats->failures;
		live += stats->live;
		count += stats->live_count;
	}
	return counted == s->counters.events &&
	       (!leaks || (leaks->bytes == live && leaks->allocations == count));
}

/* What a dump, the control endpoint and a signal's handler do, over and
 * over while the threads allocate: each must be one consistent cut. */
static void *snapshots(void *arg)
{
	(void)arg;
	static struct vt_snapshot snapshot;
	struct vt_leaks leaks;
	while (!atomic_load(&done)) {
		vt_leaks_snapshot(&tracker, &snapshot, &leaks);
		if (!agrees(&snapshot, &leaks))
			atomic_fetch_add(&contradictions, 1);
		vt_leaks_free(&leaks);
		vt_snapshot_free(&snapshot);
		vt_tracker_peek(&tracker, &snapshot);
		/* A signal's handler waits for the locks a bounded time only: a cut
		 * is promised when it got them all (under valgrind a thread can
		 * hold one past the wait). */
		bool held = snapshot.hold.host && snapshot.hold.devices == UINT64_MAX;
		if (held && !agrees(&snapshot, NULL))
			atomic_fetch_add(&contradictions, 1);
		if (!held)
			atomic_fetch_add(&partial_peeks, 1);
		vt_tracker_peek_end(&tracker, &snapshot);
		atomic_fetch_add(&cuts, 2);
	}
	return NULL;
}

#define CHECK(condition, ...)                                         \
	do {                                                          \
		if (!(condition)) {                                   \
			fprintf(stderr, "concurrency: " __VA_ARGS__); \
			fputc('\n', stderr);                          \
			return 1;                                     \
		}                                                     \
	} while (0)

/* The hot path's lock alone: a plain counter that only it guards, and
 * the errno the futex calls of its slow path would otherwise change. */
static struct vt_lock counter_lock;
static uint64_t guarded;
#define LOCK_ROUNDS 200000

static void *increment(void *arg)
{
	(void)arg;
	errno = 1234;
	for (int i = 0; i < LOCK_ROUNDS; i++) {
		vt_lock_take(&counter_lock);
		guarded++;
		vt_lock_give(&counter_lock);
	}
	return errno == 1234 ? NULL : (void *)1;
}

static int check_lock(void)
{
	pthread_t threads[THREADS];
	vt_lock_init(&counter_lock);
	for (int t = 0; t < THREADS; t++)
		pthread_create(&threads[t], NULL, increment, NULL);
	for (int t = 0; t < THREADS; t++) {
		void *result;
		pthread_join(threads[t], &result);
		CHECK(result == NULL, "errno changed under the lock");
	}
	CHECK(guarded == (uint64_t)THREADS * LOCK_ROUNDS, "%llu increments",
	      (unsigned long long)guarded);
	CHECK(atomic_load(&counter_lock.state) == 0, "the lock was left held");
	return 0;
}

int main(void)
{
	if (check_lock())
		return 1;
	struct vt_tracker_options options = {1, 8, vt_clock_ns};
	vt_tracker_init(&tracker, &options);
	pthread_t threads[THREADS], reader;
	pthread_create(&reader, NULL, snapshots, NULL);
	for (uintptr_t t = 0; t < THREADS; t++)
		pthread_create(&threads[t], NULL, work, (void *)t);
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	atomic_store(&done, 1);
	pthread_join(reader, NULL);
	CHECK(atomic_load(&contradictions) == 0, "%u of %u snapshots contradict themselves",
	      atomic_load(&contradictions), atomic_load(&cuts));
	static struct vt_snapshot s;
	vt_tracker_snapshot(&tracker, &s);
	uint64_t allocations = s.devices[0].allocs + s.devices[1].allocs;
	CHECK(allocations == THREADS * (ROUNDS + 1), "%llu allocations",
	      (unsigned long long)allocations);
	CHECK(s.devices[0].live == 64ull << 20, "device 0 holds %llu",
	      (unsigned long long)s.devices[0].live);
	CHECK(s.devices[1].live == 72ull << 20, "device 1 holds %llu",
	      (unsigned long long)s.devices[1].live);
	CHECK(s.counters.events == 2 * THREADS * ROUNDS + THREADS, "%llu events",
	      (unsigned long long)s.counters.events);
	CHECK(s.counters.unknown_frees == 0 && s.counters.deduplicated == 0, "lost events");
	uint32_t scratch = vt_tag_intern("scratch");
	CHECK(s.devices[0].tags.items[scratch].live == 0, "scratch left bytes");
	CHECK(s.devices[0].kinds[VT_KIND_ASYNC].live + s.devices[1].kinds[VT_KIND_ASYNC].live == 0,
	      "async bytes left");
	/* A stack is its frames with its tag: each thread's kept one (16), the
	 * scratch ones (4 first frames at 3 depths) and those the retags moved
	 * bytes to (each thread's frames at depths 1 and 2 with its own tag). */
	CHECK(vt_stack_limit() - 1 == THREADS + 4 * 3 + THREADS * 2, "%u stacks",
	      vt_stack_limit() - 1);
	for (int d = 0; d < 2; d++) {
		uint64_t held = 0;
		for (uint32_t id = 1; id < s.devices[d].stacks.size; id++) {
			const struct vt_counter *stack = &s.devices[d].stacks.items[id];
			held += stack->live;
			CHECK(!(stack->allocs || stack->live) || stack->tag == vt_stack_tag(id),
			      "stack %u's tag", id);
		}
		CHECK(held == s.devices[d].live, "device %d's stacks hold %llu", d,
		      (unsigned long long)held);
	}
	vt_snapshot_free(&s);
	vt_tracker_destroy(&tracker);
	printf("concurrency: %d threads x %d rounds on 2 devices: exact, %u snapshots taken "
	       "meanwhile all consistent\n",
	       THREADS, ROUNDS, atomic_load(&cuts));
	return 0;
}
