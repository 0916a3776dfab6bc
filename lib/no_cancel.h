/* The tracer's work on a program's thread runs with cancellation held off:
 * a cancellation point inside it (open, write, nanosleep, pthread_join)
 * would end the thread there, in the middle of activation or of the
 * report, with the tracer's locks held and the ending signals blocked,
 * where the program itself reaches no cancellation point. A request
 * pending stays pending, acted on at the program's next cancellation
 * point as it would have been. */
#pragma once

#include <pthread.h>

static inline int vt_no_cancel_begin(void)
{
	int previous = PTHREAD_CANCEL_ENABLE;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &previous);
	return previous;
}

static inline void vt_no_cancel_end(const int *previous)
{
	pthread_setcancelstate(*previous, NULL);
}

/* Cancellation held off for the rest of the enclosing block. */
#define VT_NO_CANCEL()                                                                        \
	const int vt_no_cancel_previous_ __attribute__((cleanup(vt_no_cancel_end), unused)) = \
		vt_no_cancel_begin()
