/* Termination (SIGTERM, SIGINT, SIGHUP) and fatal signals (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL, SIGABRT, so abort() after an out-of-memory error too).
 *
 * A termination signal the program handles itself is passed to its handler
 * untouched: the program decides how to end, and the report is written at
 * its exit. One it leaves at the default action, and every fatal signal,
 * writes the report from the handler by the async-signal-safe path, then
 * takes the action the program had set, or the default one, so the exit
 * status is what it would have been. */
#define _GNU_SOURCE
#include "signals.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "../library.h"

static const int terminating[] = {SIGTERM, SIGINT, SIGHUP};
static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

#define ALTERNATE_STACK (256 * 1024)

static struct sigaction previous[NSIG];

static bool is_fatal(int signal_number)
{
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (fatal[i] == signal_number)
			return true;
	return false;
}

static bool program_handles(const struct sigaction *action)
{
	return (action->sa_flags & SA_SIGINFO)
		       ? action->sa_sigaction != NULL
		       : action->sa_handler != SIG_DFL && action->sa_handler != SIG_IGN;
}

static void call_program_handler(int signal_number, siginfo_t *info, void *context)
{
	const struct sigaction *action = &previous[signal_number];
	if (action->sa_flags & SA_SIGINFO)
		action->sa_sigaction(signal_number, info, context);
	else
		action->sa_handler(signal_number);
}

static void handler(int signal_number, siginfo_t *info, void *context)
{
	if (!is_fatal(signal_number) && program_handles(&previous[signal_number])) {
		call_program_handler(signal_number, info, context);
		return;
	}
	vt_library_emergency(signal_number);
	if (program_handles(&previous[signal_number])) {
		call_program_handler(signal_number, info, context);
		return;
	}
	/* The default action, raised again: it is blocked until we return, and
	 * a faulting instruction simply faults again. */
	sigaction(signal_number, &previous[signal_number], NULL);
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
	for (size_t i = 0; i < sizeof(terminating) / sizeof(terminating[0]); i++)
		install(terminating[i]);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		install(fatal[i]);
}
