#define _GNU_SOURCE
#include "thread_space.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* [guard page][stack, growing down][caches]: an overflow meets the guard,
 * never the caches. */
struct space {
	size_t mapped;
	void **owner;         /* the thread's pointer, cleared as the thread exits */
	bool running;         /* on the tracer's stack now: a nested run stays there */
	uintptr_t program_sp; /* while running: near the program's stack pointer */
};

static const size_t cache_bytes[VT_CACHE_COUNT] = {VT_CACHE_STACKS_BYTES,
						   VT_CACHE_PYTHON_CODE_BYTES, VT_CACHE_WALK_BYTES};

/* NULL: not mapped yet; GONE: the thread is exiting, or mapping failed. */
#define GONE ((void *)1)
static __thread void *mine __attribute__((tls_model("initial-exec")));

/* The signals held while on the tracer's stack: made with the key, before
 * any thread has a space to run on, and published with key_state. */
static sigset_t held;

/* A fault is still delivered: blocked, it would kill the process without
 * its handlers. */
static void fill_held(sigset_t *set)
{
	static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT};
	sigfillset(set);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(set, faults[i]);
}

static pthread_key_t exit_key;
static atomic_int key_state; /* 0 none, 1 made, -1 failed */
static pthread_mutex_t key_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t page_size(void)
{
	long size = sysconf(_SC_PAGESIZE);
	return size > 0 ? (size_t)size : 4096;
}

static void release(void *space)
{
	struct space *s = space;
	*s->owner = GONE;
	size_t guard = page_size();
	munmap((char *)s - guard - VT_THREAD_STACK_BYTES, s->mapped);
}

static bool make_key(void)
{
	int state = atomic_load_explicit(&key_state, memory_order_acquire);
	if (state)
		return state > 0;
	pthread_mutex_lock(&key_lock);
	if (!atomic_load(&key_state)) {
		fill_held(&held);
		atomic_store(&key_state, pthread_key_create(&exit_key, release) == 0 ? 1 : -1);
	}
	pthread_mutex_unlock(&key_lock);
	return atomic_load(&key_state) > 0;
}

static size_t caches_bytes(void)
{
	size_t total = sizeof(struct space);
	for (int i = 0; i < VT_CACHE_COUNT; i++)
		total += cache_bytes[i];
	return total;
}

static char *map_at(void *hint, size_t length)
{
	char *base = mmap(hint, length, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return base == MAP_FAILED ? NULL : base;
}

/* Below the thread's stack, where Linux puts a new mapping anyway: a tool
 * that follows calls by the stack pointer (callgrind) takes a switch to a
 * stack above the program's for the return of every program frame, which
 * under valgrind's bottom-up placement made a created thread's profile
 * worthless. A hint 64 MiB below, where that placement differs; else where
 * the system puts it. */
static char *map_below_stack(size_t length)
{
	uintptr_t sp = (uintptr_t)&length;
	char *base = map_at(NULL, length);
	if (!base || (uintptr_t)base < sp)
		return base;
	uintptr_t below = (sp & ~(uintptr_t)0xfffff) - ((uintptr_t)64 << 20) - length;
	char *lower = below < sp ? map_at((void *)(below & ~(uintptr_t)0xfff), length) : NULL;
	if (!lower || (uintptr_t)lower > sp) {
		if (lower)
			munmap(lower, length);
		return base;
	}
	munmap(base, length);
	return lower;
}

static struct space *map_space(void)
{
	size_t guard = page_size();
	size_t length = guard + VT_THREAD_STACK_BYTES + caches_bytes();
	length = (length + guard - 1) / guard * guard;
	int saved_errno = errno;
	char *base = map_below_stack(length);
	if (!base) {
		errno = saved_errno;
		return NULL;
	}
	mprotect(base, guard, PROT_NONE);
	struct space *s = (struct space *)(base + guard + VT_THREAD_STACK_BYTES);
	*s = (struct space){length, &mine, false, 0};
	if (pthread_setspecific(exit_key, s) != 0) {
		munmap(base, length);
		s = NULL;
	}
	errno = saved_errno;
	return s;
}

static struct space *space(void)
{
	void *current = mine;
	if (current == GONE)
		return NULL;
	if (current)
		return current;
	struct space *s = make_key() ? map_space() : NULL;
	mine = s ? (void *)s : GONE;
	return s;
}

static void *cache_in(struct space *s, enum vt_thread_cache which)
{
	char *at = (char *)s + sizeof(struct space);
	for (int i = 0; i < (int)which; i++)
		at += cache_bytes[i];
	return at;
}

void *vt_thread_cache(enum vt_thread_cache which)
{
	struct space *s = space();
	return s ? cache_in(s, which) : NULL;
}

void *vt_thread_cache_if_mapped(enum vt_thread_cache which)
{
	void *current = mine;
	return current && current != GONE ? cache_in(current, which) : NULL;
}

void vt_stack_switch(void (*fn)(void *), void *arg, void *top);

bool vt_thread_run_on_own_stack(void (*fn)(void *), void *arg)
{
	struct space *s = space();
	if (!s)
		return false;
	if (s->running) {
		fn(arg);
		return true;
	}
	sigset_t previous;
	pthread_sigmask(SIG_BLOCK, &held, &previous);
	/* The top, 16-byte aligned: just below the caches. */
	void *top = (void *)((uintptr_t)s & ~(uintptr_t)15);
	s->running = true;
	/* The switch's frame lies a little below this one's locals. */
	s->program_sp = (uintptr_t)&previous - 1024;
	vt_stack_switch(fn, arg, top);
	s->running = false;
	pthread_sigmask(SIG_SETMASK, &previous, NULL);
	return true;
}

bool vt_run_on_mapped_stack(void (*fn)(void *), void *arg, size_t bytes)
{
	size_t guard = page_size();
	size_t length = guard + (bytes + guard - 1) / guard * guard;
	int saved_errno = errno;
	char *base = map_at(NULL, length);
	errno = saved_errno;
	if (!base)
		return false;
	mprotect(base, guard, PROT_NONE);
	/* Made here, not with the key: this may run on a thread that never
	 * had an event, before any key was made. */
	sigset_t hold, previous;
	fill_held(&hold);
	pthread_sigmask(SIG_BLOCK, &hold, &previous);
	vt_stack_switch(fn, arg, base + length);
	pthread_sigmask(SIG_SETMASK, &previous, NULL);
	saved_errno = errno;
	munmap(base, length);
	errno = saved_errno;
	return true;
}

bool vt_thread_own_stack(uintptr_t *low, uintptr_t *high, uintptr_t *program_sp)
{
	void *current = mine;
	if (!current || current == GONE || !((struct space *)current)->running)
		return false;
	struct space *s = current;
	*high = (uintptr_t)s;
	*low = *high - VT_THREAD_STACK_BYTES;
	*program_sp = s->program_sp;
	return true;
}
