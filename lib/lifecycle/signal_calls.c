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

/* X/Open's name for signal(), which glibc declares only for the older
 * X/Open standards. */
sighandler_t bsd_signal(int signal_number, sighandler_t handler);

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

static int set(int signal_number, sighandler_t handler, int flags, bool mask_itself,
	       sighandler_t *old_handler)
{
	struct sigaction action, old;
	memset(&action, 0, sizeof(action));
	action.sa_handler = handler;
	action.sa_flags = flags;
	sigemptyset(&action.sa_mask);
	if (mask_itself)
		sigaddset(&action.sa_mask, signal_number);
	if (vt_signals_action(signal_number, &action, &old) != 0)
		return -1;
	*old_handler = old.sa_handler;
	return 0;
}

/* BSD's: restarted unless siginterrupt said otherwise, the signal held
 * while its handler runs. */
VT_EXPORT sighandler_t signal(int signal_number, sighandler_t handler)
{
	sighandler_t old;
	if (!settable(signal_number, handler))
		return SIG_ERR;
	bool interrupts = sigismember(&interrupting, signal_number) == 1;
	if (set(signal_number, handler, interrupts ? 0 : SA_RESTART, true, &old) != 0)
		return SIG_ERR;
	return old;
}

VT_EXPORT sighandler_t bsd_signal(int signal_number, sighandler_t handler)
{
	return signal(signal_number, handler);
}

VT_EXPORT sighandler_t ssignal(int signal_number, sighandler_t handler)
{
	return signal(signal_number, handler);
}

/* System V's: reset to the default when delivered, not held while its
 * handler runs, never restarted. A program built for strict ISO C calls
 * it for signal(). */
VT_EXPORT sighandler_t __sysv_signal(int signal_number, sighandler_t handler)
{
	sighandler_t old;
	if (!settable(signal_number, handler))
		return SIG_ERR;
	if (set(signal_number, handler, SA_RESETHAND | SA_NODEFER | SA_INTERRUPT, false, &old) != 0)
		return SIG_ERR;
	return old;
}

VT_EXPORT sighandler_t sysv_signal(int signal_number, sighandler_t handler)
{
	return __sysv_signal(signal_number, handler);
}

/* SIG_HOLD blocks the signal and leaves its action; any other disposition
 * is set and unblocks it. Either returns SIG_HOLD where the signal was
 * blocked, else the action it had. */
static sighandler_t hold(int signal_number, const sigset_t *only)
{
	sigset_t before;
	struct sigaction old;
	if (sigprocmask(SIG_BLOCK, only, &before) != 0)
		return SIG_ERR;
	if (sigismember(&before, signal_number) == 1)
		return SIG_HOLD;
	if (vt_signals_action(signal_number, NULL, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

VT_EXPORT sighandler_t sigset(int signal_number, sighandler_t handler)
{
	sigset_t only, before;
	sighandler_t old;
	sigemptyset(&only);
	if (sigaddset(&only, signal_number) != 0)
		return SIG_ERR;
	if (handler == SIG_HOLD)
		return hold(signal_number, &only);
	if (set(signal_number, handler, 0, false, &old) != 0 ||
	    sigprocmask(SIG_UNBLOCK, &only, &before) != 0)
		return SIG_ERR;
	return sigismember(&before, signal_number) == 1 ? SIG_HOLD : old;
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
