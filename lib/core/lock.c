#include "lock.h"

#include <errno.h>
#include <stdbool.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread unsigned vt_tracer_busy __attribute__((tls_model("initial-exec")));

/* Long enough for a holder on another core to finish a few dozen
 * instructions; short enough that a preempted holder costs little. */
#define SPINS 64

static bool try_take(struct vt_lock *lock)
{
	uint32_t free_state = 0;
	return atomic_load_explicit(&lock->state, memory_order_relaxed) == 0 &&
	       atomic_compare_exchange_weak_explicit(&lock->state, &free_state, 1,
						     memory_order_acquire, memory_order_relaxed);
}

static void futex(struct vt_lock *lock, int operation, uint32_t value)
{
	syscall(SYS_futex, &lock->state, operation, value, NULL, NULL, 0);
}

/* The program's errno survives: a futex call may set it (EAGAIN, EINTR). */
void vt_lock_wait(struct vt_lock *lock)
{
	for (int spin = 0; spin < SPINS; spin++) {
		if (try_take(lock))
			return;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
	int saved_errno = errno;
	/* Taken as 2, since other waiters may sleep behind this one. */
	while (atomic_exchange_explicit(&lock->state, 2, memory_order_acquire) != 0)
		futex(lock, FUTEX_WAIT_PRIVATE, 2);
	errno = saved_errno;
}

void vt_lock_wake(struct vt_lock *lock)
{
	int saved_errno = errno;
	futex(lock, FUTEX_WAKE_PRIVATE, 1);
	errno = saved_errno;
}
