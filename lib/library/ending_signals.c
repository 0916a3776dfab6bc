#define _GNU_SOURCE
#include "ending_signals.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "../sources/real.h"

const int vt_ending_signal_numbers[] = {SIGHUP,  SIGINT,  SIGQUIT,   SIGILL,  SIGTRAP, SIGABRT,
					SIGBUS,  SIGFPE,  SIGUSR1,   SIGSEGV, SIGUSR2, SIGPIPE,
					SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM,
					SIGPROF, SIGIO,   SIGPWR,    SIGSYS};
const size_t vt_ending_signal_count =
	sizeof(vt_ending_signal_numbers) / sizeof(vt_ending_signal_numbers[0]);

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

extern int __sigaction(int, const struct sigaction *, struct sigaction *); /* libc's own */

/* Found before any handler of the tracer's can run. */
static _Atomic(sigaction_fn) real_sigaction;

int vt_real_sigaction(int signal_number, const struct sigaction *action, struct sigaction *old)
{
	sigaction_fn fn = atomic_load(&real_sigaction);
	if (!fn) {
		fn = (sigaction_fn)vt_real_next("sigaction");
		if (!fn)
			fn = __sigaction;
		atomic_store(&real_sigaction, fn);
	}
	return fn(signal_number, action, old);
}

void vt_ending_signals_fill(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < vt_ending_signal_count; i++)
		sigaddset(set, vt_ending_signal_numbers[i]);
	for (int number = SIGRTMIN; number <= SIGRTMAX; number++)
		sigaddset(set, number);
}

/* Raised again at the default action, and let through at once while the
 * other ending signals stay blocked: the process ends of this one, with
 * its core dump as the kernel would make it. */
void vt_ending_signals_default_action(int signal_number)
{
	struct sigaction default_action;
	memset(&default_action, 0, sizeof(default_action));
	default_action.sa_handler = SIG_DFL;
	vt_real_sigaction(signal_number, &default_action, NULL);
	raise(signal_number);
	sigset_t only;
	sigemptyset(&only);
	sigaddset(&only, signal_number);
	pthread_sigmask(SIG_UNBLOCK, &only, NULL);
}
