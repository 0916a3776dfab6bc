#define _GNU_SOURCE
#include "signals.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../config.h"
#include "../core/sink.h"

static const int ending[] = {SIGTERM, SIGINT,  SIGHUP,  SIGQUIT, SIGPIPE,   SIGALRM,
			     SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
			     SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,  SIGABRT};

#define ENDING_COUNT    (sizeof(ending) / sizeof(ending[0]))
#define ALTERNATE_STACK (256 * 1024)

static struct sigaction previous[NSIG];

void vt_signals_ending(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < ENDING_COUNT; i++)
		sigaddset(set, ending[i]);
}

static bool program_handles(const struct sigaction *action)
{
	return (action->sa_flags & SA_SIGINFO)
		       ? action->sa_sigaction != NULL
		       : action->sa_handler != SIG_DFL && action->sa_handler != SIG_IGN;
}

/* As the kernel would have run it: with the program's mask added, and
 * reset to the default first when it asked for one shot. */
static void call_program_handler(int signal_number, siginfo_t *info, void *context)
{
	struct sigaction action = previous[signal_number];
	if (action.sa_flags & SA_RESETHAND) {
		previous[signal_number].sa_handler = SIG_DFL;
		previous[signal_number].sa_flags &= ~SA_SIGINFO;
	}
	sigset_t old;
	pthread_sigmask(SIG_BLOCK, &action.sa_mask, &old);
	if (action.sa_flags & SA_SIGINFO)
		action.sa_sigaction(signal_number, info, context);
	else
		action.sa_handler(signal_number);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* abort() raises SIGABRT at itself; once a handler returns, it resets the
 * action and raises again, past any handler: the process is ending. */
static bool aborting(int signal_number, const siginfo_t *info)
{
	return signal_number == SIGABRT && info && info->si_code == SI_TKILL &&
	       info->si_pid == getpid();
}

static void handler(int signal_number, siginfo_t *info, void *context)
{
	int saved_errno = errno;
	if (program_handles(&previous[signal_number])) {
		call_program_handler(signal_number, info, context);
		/* The report as it stands; replaced should the process go on. */
		if (aborting(signal_number, info))
			vt_sink.emergency(signal_number, false);
		errno = saved_errno;
		return;
	}
	vt_sink.emergency(signal_number, true);
	vt_signals_take_default_action(signal_number);
	errno = saved_errno;
}

/* Raised again at the default action: in a handler it is blocked until the
 * handler returns, and a faulting instruction simply faults again. */
void vt_signals_take_default_action(int signal_number)
{
	struct sigaction default_action;
	memset(&default_action, 0, sizeof(default_action));
	default_action.sa_handler = SIG_DFL;
	sigaction(signal_number, &default_action, NULL);
	raise(signal_number);
}

/* The report must be writable after a stack overflow too. */
static void install_alternate_stack(void)
{
	stack_t current;
	if (sigaltstack(NULL, &current) == 0 && !(current.ss_flags & SS_DISABLE))
		return; /* the program has one */
	void *memory = mmap(NULL, ALTERNATE_STACK, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (memory == MAP_FAILED)
		return;
	stack_t stack = {.ss_sp = memory, .ss_size = ALTERNATE_STACK, .ss_flags = 0};
	if (sigaltstack(&stack, NULL) != 0)
		munmap(memory, ALTERNATE_STACK);
}

static void install(int signal_number)
{
	struct sigaction action, old;
	if (sigaction(signal_number, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
		return; /* nohup and friends: ignored stays ignored */
	previous[signal_number] = old;
	memset(&action, 0, sizeof(action));
	action.sa_sigaction = handler;
	action.sa_flags = SA_SIGINFO | SA_ONSTACK | (old.sa_flags & SA_RESTART);
	sigemptyset(&action.sa_mask);
	sigaction(signal_number, &action, NULL);
}

void vt_signals_install(void)
{
	install_alternate_stack();
	for (size_t i = 0; i < ENDING_COUNT; i++)
		install(ending[i]);
}
