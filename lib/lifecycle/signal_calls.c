/* glibc's older ways to set an action, each as glibc writes it but through
 * the sigaction vramtrace exports: glibc's own call its internal sigaction,
 * where no interposer sees them, and so would show the program the
 * tracer's handler, or remove it. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include "../sources/call.h"
#include "signals.h"

/* siginterrupt's set (glibc's own is internal to it): signal() leaves
 * SA_RESTART off for these. */
static sigset_t interrupting;

static bool settable(int signal_number, sighandler_t handler)
{
	if (handler == SIG_ERR || signal_number < 1 || signal_number >= NSIG) {
		errno = EINVAL;
		return false;
	}
	return true;
}

static sighandler_t set(int signal_number, sighandler_t handler, int flags, bool mask_itself)
{
	struct sigaction action, old;
	memset(&action, 0, sizeof(action));
	action.sa_handler = handler;
	action.sa_flags = flags;
	sigemptyset(&action.sa_mask);
	if (mask_itself)
		sigaddset(&action.sa_mask, signal_number);
	if (vt_signals_action(signal_number, &action, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* BSD's: restarted unless siginterrupt said otherwise, the signal held
 * while its handler runs. */
VT_EXPORT sighandler_t signal(int signal_number, sighandler_t handler)
{
	if (!settable(signal_number, handler))
		return SIG_ERR;
	bool interrupts = sigismember(&interrupting, signal_number) == 1;
	return set(signal_number, handler, interrupts ? 0 : SA_RESTART, true);
}

VT_EXPORT int siginterrupt(int signal_number, int interrupt)
{
	struct sigaction action;
	if (vt_signals_action(signal_number, NULL, &action) != 0)
		return -1;
	if (interrupt) {
		sigaddset(&interrupting, signal_number);
		action.sa_flags &= ~SA_RESTART;
	} else {
		sigdelset(&interrupting, signal_number);
		action.sa_flags |= SA_RESTART;
	}
	return vt_signals_action(signal_number, &action, NULL) != 0 ? -1 : 0;
}
