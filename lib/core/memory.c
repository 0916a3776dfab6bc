#include "memory.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

struct masked {
	sigset_t previous;
};

static void block(struct masked *masked)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &masked->previous);
}

/* malloc's errno (ENOMEM) is what the caller sees. */
static void unblock(struct masked *masked)
{
	int error = errno;
	pthread_sigmask(SIG_SETMASK, &masked->previous, NULL);
	errno = error;
}

void *vt_mem_alloc(size_t size)
{
	struct masked masked;
	block(&masked);
	void *memory = malloc(size);
	unblock(&masked);
	return memory;
}

void *vt_mem_calloc(size_t count, size_t size)
{
	struct masked masked;
	block(&masked);
	void *memory = calloc(count, size);
	unblock(&masked);
	return memory;
}

void *vt_mem_realloc(void *memory, size_t size)
{
	struct masked masked;
	block(&masked);
	void *moved = realloc(memory, size);
	unblock(&masked);
	return moved;
}

void vt_mem_free(void *memory)
{
	if (!memory)
		return;
	struct masked masked;
	block(&masked);
	free(memory);
	unblock(&masked);
}
