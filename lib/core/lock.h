/* The locks of the hot path: held for a few dozen instructions, so a
 * waiter spins briefly before it sleeps (glibc's adaptive mutex). */
#pragma once

#include <pthread.h>

static inline void vt_lock_init(pthread_mutex_t *lock)
{
	pthread_mutexattr_t attributes;
	pthread_mutexattr_init(&attributes);
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
	pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
	pthread_mutex_init(lock, &attributes);
	pthread_mutexattr_destroy(&attributes);
}
