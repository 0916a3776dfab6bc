/* The locks of the hot path: held for a few dozen instructions, taken once
 * or twice per event. Taking a free lock is one compare-and-swap and giving
 * it back one exchange, both inline; a waiter spins briefly, then sleeps on
 * a futex. The three states follow Drepper's "Futexes Are Tricky": a giver
 * makes the wake-up system call only when someone may be asleep. */
#pragma once

#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>

struct vt_lock {
	_Atomic uint32_t state; /* 0 free, 1 held, 2 held and maybe waited on */
};

static inline void vt_lock_init(struct vt_lock *lock)
{
	atomic_store_explicit(&lock->state, 0, memory_order_relaxed);
}

/* Non-zero while this thread does the tracer's own work, when it may hold
 * the tracer's locks or malloc's: a signal handler that ends the process,
 * forks or allocates from here must not take them again (the handlers at
 * fork take none, and the child stops tracing). */
extern __thread unsigned vt_tracer_busy
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

static inline unsigned vt_tracer_work_begin(void)
{
	return ++vt_tracer_busy;
}

static inline void vt_tracer_work_end(const unsigned *depth)
{
	(void)depth;
	vt_tracer_busy--;
}

/* Marks the rest of the enclosing block as the tracer's own work. The mark
 * comes off however the block is left, so no early return can leave a
 * thread marked (heaptrack and memray hold their guards in scoped objects
 * for the same reason). */
#define VT_TRACER_WORK()                     \
	const unsigned vt_tracer_work_depth_ \
		__attribute__((cleanup(vt_tracer_work_end), unused)) = vt_tracer_work_begin()

void vt_lock_wait(struct vt_lock *lock);
void vt_lock_wake(struct vt_lock *lock);

static inline void vt_lock_take(struct vt_lock *lock)
{
	uint32_t free_state = 0;
	if (!atomic_compare_exchange_strong_explicit(&lock->state, &free_state, 1,
						     memory_order_acquire, memory_order_relaxed))
		vt_lock_wait(lock);
}

static inline void vt_lock_give(struct vt_lock *lock)
{
	if (atomic_exchange_explicit(&lock->state, 0, memory_order_release) == 2)
		vt_lock_wake(lock);
}

/* Takes the lock if it is free now; never waits. */
static inline bool vt_lock_try(struct vt_lock *lock)
{
	uint32_t free_state = 0;
	return atomic_load_explicit(&lock->state, memory_order_relaxed) == 0 &&
	       atomic_compare_exchange_strong_explicit(&lock->state, &free_state, 1,
						       memory_order_acquire, memory_order_relaxed);
}
